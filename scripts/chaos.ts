// `npm run chaos -- --minutes 10`: worker and supervisor processes, operators, a job stream
// and faults (kill -9, SIGSTOP past the lease, pg_terminate_backend, a PostgreSQL restart,
// a PostgreSQL crash, a dropped LISTEN, SIGTERM drains) against an embedded PostgreSQL in .data/chaos-pg; then
// every invariant is checked. Exit code 1 when any invariant was violated.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { FAULT_KINDS, runChaos, SHORT_PROFILE, totalViolations } from "../lib/chaos/harness";

const USAGE = `usage: npm run chaos -- [--minutes N | --seconds N] [--workers N] [--concurrency N] [--rate JOBS_PER_S]
                        [--fault-gap-ms N] [--stale-after-ms N] [--data-dir DIR] [--keep] [--json FILE]`;

async function main() {
  const { values } = parseArgs({
    options: {
      minutes: { type: "string" },
      seconds: { type: "string" },
      workers: { type: "string", default: "4" },
      concurrency: { type: "string", default: "6" },
      rate: { type: "string", default: "12" },
      "fault-gap-ms": { type: "string", default: "6000" },
      "stale-after-ms": { type: "string", default: "4000" },
      "data-dir": { type: "string", default: ".data/chaos-pg" },
      keep: { type: "boolean", default: false },
      json: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return console.log(USAGE);
  const durationMs = values.minutes ? Number(values.minutes) * 60_000 : values.seconds ? Number(values.seconds) * 1000 : 2 * 60_000;
  const n = (s: string) => {
    const v = Number(s);
    if (!Number.isFinite(v) || v <= 0) throw new Error(`${USAGE}\nnot a positive number: ${s}`);
    return v;
  };
  const report = await runChaos({
    ...SHORT_PROFILE,
    durationMs: n(String(durationMs)),
    workers: n(values.workers),
    concurrency: n(values.concurrency),
    jobsPerSecond: n(values.rate),
    faultGapMs: n(values["fault-gap-ms"]),
    staleAfterMs: n(values["stale-after-ms"]),
    drainMs: 3_000,
    settleMs: 15_000,
    // Every fault, the clean restart and the crash both (the short profile has the crash only).
    faultKinds: FAULT_KINDS,
    dataDir: values["data-dir"],
    cleanup: !values.keep,
    log: (line) => console.log(line),
  });
  console.log(JSON.stringify(report, null, 2));
  if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
  const v = totalViolations(report);
  console.log(v === 0 ? "CHAOS OK: 0 invariant violations" : `CHAOS FAILED: ${v} invariant violations`);
  process.exitCode = v === 0 ? 0 : 1;
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(2);
});

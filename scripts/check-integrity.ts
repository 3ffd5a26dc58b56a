// `npm run check:integrity`: rebuild every job from its transitions and compare it with its row and
// run records. Incremental: by default it checks the jobs with activity since the last stored
// check (submitted, moved, or an attempt ended: lib/integrity/check.ts), so it can run from cron
// every few minutes. Exit code 1 when it finds a mismatch.
import { parseArgs } from "node:util";
import { closeDb, connect, databaseUrl } from "../lib/db/client";
import { runIncrementalCheck } from "../lib/integrity/check";

const USAGE = `usage: npm run check:integrity -- [--all | --since 2h | --from ISO [--to ISO]] [--lag-ms N]
  (default)  from the end of the last stored check (or the beginning) to now minus the lag
  --all      every job, from the beginning
  --since    a window ending now: 30m, 2h, 7d
  --from/--to  an explicit window of activity: submits (job_catalog.created_at), transitions no
             worker applied (job_log.at) and ended attempts (job_attempts.finished_at); a worker's
             claim and start are checked when their attempt ends
  --lag-ms   leave the last N ms for the next run, so in-flight transactions are not half-read (default 5000)`;

function parseDuration(s: string): number {
  const m = /^(\d+)(s|m|h|d)$/.exec(s);
  if (!m) throw new Error(`not a duration: ${s} (try 30m, 2h, 7d)`);
  return Number(m[1]) * { s: 1e3, m: 6e4, h: 3.6e6, d: 8.64e7 }[m[2] as "s" | "m" | "h" | "d"];
}

async function main() {
  const { values } = parseArgs({
    options: {
      all: { type: "boolean", default: false },
      since: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      "lag-ms": { type: "string", default: "5000" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return console.log(USAGE);
  const date = (s: string) => {
    const d = new Date(s);
    if (Number.isNaN(d.getTime())) throw new Error(`not a date: ${s}`);
    return d;
  };
  const from = values.all
    ? new Date(0)
    : values.since
      ? new Date(Date.now() - parseDuration(values.since))
      : values.from
        ? date(values.from)
        : undefined;
  const to = values.to ? date(values.to) : undefined;
  const lagMs = Number(values["lag-ms"]);
  const db = connect(databaseUrl(), { max: 4, appName: "jobscope-check-integrity" });
  try {
    const r = await runIncrementalCheck(db, { actor: "cli", from, to, lagMs });
    const rate = r.durationMs > 0 ? Math.round((r.jobsChecked / r.durationMs) * 1000) : r.jobsChecked;
    console.log(
      `check #${r.id}: ${r.windowFrom.toISOString()} → ${r.windowTo.toISOString()}: ${r.jobsChecked} jobs, ${r.eventsRebuilt} events in ${r.durationMs} ms (${rate} jobs/s); ${r.mismatches.length} mismatches`,
    );
    for (const m of r.mismatches.slice(0, 50)) console.log(`  ${m.jobId}: ${m.problem}`);
    if (r.mismatches.length > 50) console.log(`  … and ${r.mismatches.length - 50} more (the first 200 are stored in integrity_audits)`);
    process.exitCode = r.mismatches.length ? 1 : 0;
  } finally {
    await closeDb(db);
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(2);
});

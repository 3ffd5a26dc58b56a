// A fault run against a running `npm start` (docs/reliability.md, "A fault run of `npm start`"): under a steady stream of submits, SIGKILL the web process, then the embedded
// PostgreSQL's postmaster, then the busiest worker, and wait — without touching anything else — for
// the product to serve and process again after each. Then every acknowledged submit must be one job,
// finished or still live, and nothing may be left under a dead worker's lease.
//
//   npx tsx scripts/fault-run.ts --data .data/pg --port 3000
//
// Only the processes of that `npm start` are signalled: its web process (found by its port), that
// process's parent (the start script) and its worker children, and the postmaster of its data dir.
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { closeDb, connect } from "../lib/db/client";
import { DEFAULT_DATA_DIR, urlFileFor } from "../lib/db/embedded";
import { enqueue } from "../lib/jobs/enqueue";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

const { values: args } = parseArgs({
  options: {
    data: { type: "string", default: DEFAULT_DATA_DIR },
    port: { type: "string", default: "3000" },
    host: { type: "string", default: "127.0.0.1" },
    rate: { type: "string", default: "4" },
  },
});
const say = (s: string) => console.log(`[fault-run] ${((Date.now() - T0) / 1000).toFixed(1).padStart(6)}s ${s}`);
const T0 = Date.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Proc = { pid: number; ppid: number; cmd: string };
function procs(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      out.push({ pid: Number(name), ppid, cmd: readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ") });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
};

/** This npm start's web process (the one listening on --port), its start script, and the script's worker children. */
function parts() {
  const all = procs();
  const web = all.find((p) => p.cmd.includes("scripts/web.ts") && p.cmd.includes(`--port ${args.port}`));
  if (!web) return null;
  const workers = all.filter((p) => p.ppid === web.ppid && p.cmd.includes("scripts/worker.ts"));
  const pidFile = path.join(path.resolve(args.data), "postmaster.pid");
  const postmaster = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").split("\n")[0]) : null;
  return { web: web.pid, start: web.ppid, workers: workers.map((w) => w.pid), postmaster };
}

async function until<T>(what: string, timeoutMs: number, fn: () => Promise<T | null | undefined | false>): Promise<{ value: T; ms: number }> {
  const t = Date.now();
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return { value: v, ms: Date.now() - t };
    if (Date.now() - t > timeoutMs) throw new Error(`no ${what} within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

const base = `http://${args.host}:${args.port}`;
const healthy = async () => (await fetch(`${base}/api/integrity/health`, { signal: AbortSignal.timeout(3_000) })).ok;

async function main() {
  const url = readFileSync(urlFileFor(args.data), "utf8").trim();
  const db = connect(url, { max: 4, appName: "jobscope-fault-run" });
  const run = randomBytes(3).toString("hex");
  const first = parts();
  if (!first?.postmaster) throw new Error(`no npm start with --port ${args.port} and --data ${args.data} found`);
  say(`npm start ${first.start}: web ${first.web}, workers ${first.workers.join(", ")}, postmaster ${first.postmaster}`);
  const count = async () => (await execute<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM job_catalog`))[0]!.n;
  const liveCount = async () => (await execute<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM jobs_live`))[0]!.n;
  const before = await count();
  const liveBefore = await liveCount();

  // The producer: one submit every 1000/rate ms, each under its own idempotency key; a submit that
  // fails (a fault) is sent again under the same key until it is acknowledged.
  const acknowledged = new Map<string, string>();
  let pending: string | null = null;
  let n = 0;
  let failedSubmits = 0;
  let producing = true;
  const producer = (async () => {
    while (producing || pending) {
      const key: string = pending ?? `fault-run:${run}:${++n}`;
      pending = key;
      try {
        const { job } = await enqueue(
          db,
          { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-12" }, idempotencyKey: key },
          { kind: "api", id: "fault-run" },
        );
        acknowledged.set(key, job.id);
        pending = null;
      } catch {
        failedSubmits++;
      }
      await sleep(1000 / Number(args.rate));
    }
  })();
  const claimsSince = async (at: Date) =>
    (await execute<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM job_attempts WHERE claimed_at > ${at}`))[0]!.n +
    (await execute<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM jobs_live WHERE run_claimed_at > ${at}`))[0]!.n;

  await sleep(10_000);
  const results: string[] = [];

  // 1. The web process.
  const web = parts()!.web;
  say(`SIGKILL web ${web}`);
  let at = Date.now();
  process.kill(web, "SIGKILL");
  const webBack = await until("web process", 120_000, async () => {
    const p = parts();
    return p && p.web !== web && (await healthy()) ? p.web : null;
  });
  say(`web back as ${webBack.value} after ${webBack.ms} ms`);
  results.push(`SIGKILL web: serving again after ${(webBack.ms / 1000).toFixed(1)} s (new pid ${webBack.value})`);
  await sleep(10_000);

  // 2. PostgreSQL's postmaster (its backends are orphaned and exit; the server must come back on the same port and data).
  const pm = parts()!.postmaster!;
  say(`SIGKILL postmaster ${pm}`);
  const down = new Date();
  at = Date.now();
  process.kill(pm, "SIGKILL");
  const pgBack = await until("PostgreSQL", 120_000, async () => {
    const p = parts();
    if (!p?.postmaster || p.postmaster === pm || !alive(p.postmaster)) return null;
    await execute(db, sql`SELECT 1`);
    return p.postmaster;
  });
  const claiming = await until("a claim after the crash", 120_000, async () => (await claimsSince(down)) > 0);
  const serving = await until("the console answering", 120_000, healthy);
  say(`PostgreSQL back as ${pgBack.value} after ${pgBack.ms} ms; claiming ${Date.now() - at} ms after the kill`);
  results.push(
    `SIGKILL PostgreSQL: back after ${(pgBack.ms / 1000).toFixed(1)} s (pid ${pgBack.value}), first claim ${((pgBack.ms + claiming.ms) / 1000).toFixed(1)} s after the kill, console answering ${((pgBack.ms + claiming.ms + serving.ms) / 1000).toFixed(1)} s after`,
  );
  await sleep(10_000);

  // 3. The busiest worker (the most running jobs), by pid: one that holds work, when one does within 30 s.
  let p = parts()!;
  const busiest = async () => {
    p = parts()!;
    const [w] = await execute<{ id: string; pid: number; n: number }>(
      db,
      sql`
      SELECT w.id, w.pid, count(l.id)::int AS n FROM workers w
        LEFT JOIN jobs_live l ON l.lease_owner = w.id AND l.state IN ('claimed', 'running')
       WHERE w.pid = ANY(${sql.param(p.workers)}::int[]) AND w.stopped_at IS NULL AND w.last_seen_at > now() - interval '10 seconds'
       GROUP BY w.id, w.pid ORDER BY n DESC LIMIT 1`,
    );
    return w;
  };
  const victim =
    (await until("a worker holding jobs", 30_000, async () => ((await busiest())?.n ?? 0) > 0 && busiest()).catch(() => null))?.value ??
    (await busiest());
  if (!victim) throw new Error("no live worker of this npm start");
  say(`SIGKILL worker ${victim.id} (pid ${victim.pid}, ${victim.n} leases)`);
  const killedAt = new Date();
  process.kill(victim.pid, "SIGKILL");
  const replaced = await until("a new worker", 60_000, async () => {
    const q = parts();
    return q && q.workers.length >= p.workers.length && !q.workers.includes(victim.pid) ? q.workers : null;
  });
  const reclaimed = await until("the dead worker's leases reclaimed", 120_000, async () => {
    const [r] = await execute<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM jobs_live WHERE lease_owner = ${victim.id}`);
    return r!.n === 0;
  });
  const after = await claimsSince(killedAt);
  results.push(
    `SIGKILL worker ${victim.id} holding ${victim.n} jobs: replaced after ${(replaced.ms / 1000).toFixed(1)} s, its leases reclaimed ${((replaced.ms + reclaimed.ms) / 1000).toFixed(1)} s after the kill; ${after} claims since`,
  );
  await sleep(10_000);

  // 4. Stop submitting; every acknowledged submit must be exactly one job, and they all finish.
  producing = false;
  await producer;
  const ids = [...acknowledged.values()];
  const settled = await until("the acknowledged jobs to finish", 300_000, async () => {
    const [r] = await execute<{ live: number }>(db, sql`SELECT count(*)::int AS live FROM jobs_live WHERE id = ANY(${sql.param(ids)}::uuid[])`);
    return r!.live === 0 || null;
  }).catch(() => null);
  const byKey = await execute<{ n: number; jobs: number }>(
    db,
    sql`
    SELECT count(*)::int AS n, count(DISTINCT id)::int AS jobs FROM job_catalog WHERE idempotency_key LIKE ${`fault-run:${run}:%`}`,
  );
  const states = await execute<{ state: string; n: number }>(
    db,
    sql`SELECT state, count(*)::int AS n FROM jobs WHERE id = ANY(${sql.param(ids)}::uuid[]) GROUP BY state ORDER BY state`,
  );
  // Paused jobs keep their lease and are not heartbeated by a worker that is gone: an operator's resume starts their clock again.
  const stranded = await execute<{ n: number }>(
    db,
    sql`
    SELECT count(*)::int AS n FROM jobs_live l WHERE l.state IN ('claimed', 'running', 'cancelling') AND l.heartbeat_at < now() - interval '30 seconds'`,
  );
  const total = await count();
  const liveAfter = await liveCount();
  console.log("\nfault run:");
  for (const r of results) console.log(`  ${r}`);
  console.log(`  submits: ${n} sent, ${acknowledged.size} acknowledged (${failedSubmits} tries failed during faults and were sent again)`);
  console.log(
    `  acknowledged submits found: ${byKey[0]!.n} catalog rows, ${byKey[0]!.jobs} jobs; their states: ${states.map((s) => `${s.state} ${s.n}`).join(", ")}`,
  );
  console.log(`  all finished: ${settled ? `yes, ${(settled.ms / 1000).toFixed(1)} s after the last submit` : "NO"}`);
  console.log(`  leases stale for over 30 s now: ${stranded[0]!.n}`);
  console.log(
    `  jobs: ${before} before (${before - liveBefore} finished, ${liveBefore} live), ${total} after (${total - liveAfter} finished, ${liveAfter} live); ${total - before} new, ${acknowledged.size} of them this run's, the rest the demo's traffic`,
  );
  await closeDb(db);
  if (byKey[0]!.n !== acknowledged.size || !settled) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(`[fault-run] ${e instanceof Error ? e.message : String(e)}`);
  process.exit(2);
});

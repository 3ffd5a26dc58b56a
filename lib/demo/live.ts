import { spawn, type ChildProcess } from "node:child_process";
import type { Db } from "../db/client";
import type { JobEvent, JobState } from "../fsm/table";
import { enqueue, type EnqueueInput } from "../jobs/enqueue";
import { changeQueue } from "../jobs/queues";
import { transition } from "../jobs/transition";
import type { Actor } from "../jobs/types";
import { DEMO_TENANTS } from "./seed";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * The demo's live traffic, compressed into seconds, with its faults: real worker processes (a
 * poison job SIGKILLs the one running it, and it is started again, as `npm start` does) and a real
 * supervisor process, jobs of every demo type at small sizes, upstream timeouts, and people acting —
 * a queue paused and resumed, a concurrency limit set while jobs an operator paused hold their
 * leases, a job given up during its retry wait, a dead job replayed, an export cancelled by its
 * tenant. The claim checker's test (lib/insight/check.test.ts) explains every job it leaves.
 */
export type LiveOptions = { url: string; seconds: number; workers?: number; staleAfterMs?: number; log?: (line: string) => void };
export type LiveReport = { submitted: number; poison: number; workerDeaths: number; actions: Record<string, number> };

const OPERATOR: Actor = { kind: "operator", id: "ops@jobscope.dev" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Poll `ok` until it holds or `deadlineMs` passes (then the run goes on: the caller's checks say what happened). */
async function waitFor(ok: () => Promise<boolean>, deadlineMs: number) {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until && !(await ok())) await sleep(250);
}

export async function runLiveDemo(db: Db, opts: LiveOptions): Promise<LiveReport> {
  const log = opts.log ?? (() => {});
  const report: LiveReport = { submitted: 0, poison: 0, workerDeaths: 0, actions: {} };
  const count = (k: string) => (report.actions[k] = (report.actions[k] ?? 0) + 1);
  const env = { ...process.env, DATABASE_URL: opts.url, JOBSCOPE_STALE_AFTER_MS: String(opts.staleAfterMs ?? 3_000), JOBSCOPE_DEMO: "1" };
  const procs = new Set<ChildProcess>();
  let running = true;
  const start = (name: string, args: string[]) => {
    const child = spawn(process.execPath, ["--import", "tsx", ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
    procs.add(child);
    child.stderr?.on("data", () => {});
    child.once("exit", (code, signal) => {
      procs.delete(child);
      if (!running) return;
      report.workerDeaths++;
      log(`${name} exited (${signal ?? code}); starting it again`);
      setTimeout(() => running && start(name, args), 300);
    });
  };
  const workers = opts.workers ?? 2;
  for (let i = 1; i <= workers; i++) start(`worker ${i}`, ["scripts/worker.ts", "--concurrency", "4", "--drain-ms", "1000"]);
  start("supervisor", ["scripts/supervisor.ts"]);
  // The traffic starts once the workers are up (a loaded machine takes seconds to start them).
  await waitFor(async () => {
    const [r] = await execute<{ n: number }>(
      db,
      sql`SELECT count(*)::int AS n FROM workers WHERE stopped_at IS NULL AND last_seen_at > now() - interval '5 seconds'`,
    );
    return (r?.n ?? 0) >= workers;
  }, 90_000);

  const until = Date.now() + opts.seconds * 1_000;
  let n = 0;
  const submit = async (input: EnqueueInput) => {
    await enqueue(db, input, { kind: "api", id: `api-key-${input.tenantId}` });
    report.submitted++;
  };
  const act = async (where: { state: JobState; queue?: string; tenantId?: string }, event: JobEvent, actor: Actor) => {
    const [job] = await execute<{ id: string; state: JobState; stateVersion: number }>(
      db,
      sql`
      SELECT id, state, state_version FROM jobs_live WHERE state = ${where.state} ${where.queue ? sql`AND queue = ${where.queue}` : sql``}
         ${where.tenantId ? sql`AND tenant_id = ${where.tenantId}` : sql``}
       ORDER BY updated_at DESC LIMIT 1`,
    );
    if (!job) return null;
    const r = await transition(db, { jobId: job.id, event, actor, expected: { state: job.state, version: job.stateVersion } });
    if (r.ok) count(event);
    return r.ok ? r.job : null;
  };
  const script: { at: number; what: string; run: () => Promise<unknown> }[] = [
    { at: 4, what: "pause queue media", run: () => changeQueue(db, "media", { kind: "pause" }, OPERATOR) },
    {
      at: 9,
      what: "pause two running exports",
      run: async () => (
        await act({ state: "running", queue: "exports" }, "pause", OPERATOR),
        act({ state: "running", queue: "exports" }, "pause", OPERATOR)
      ),
    },
    { at: 10, what: "limit exports to 2", run: () => changeQueue(db, "exports", { kind: "limit", limit: 2 }, OPERATOR) },
    { at: 13, what: "resume queue media", run: () => changeQueue(db, "media", { kind: "resume" }, OPERATOR) },
    { at: 15, what: "give up a job waiting to retry", run: () => act({ state: "retry_wait" }, "abandon", OPERATOR) },
    {
      at: 17,
      what: "a tenant cancels a running export",
      run: () => act({ state: "running", queue: "exports", tenantId: "acme" }, "cancel", { kind: "tenant", id: "dana@acme.example" }),
    },
    { at: 19, what: "resume a paused export", run: () => act({ state: "paused", queue: "exports" }, "resume", OPERATOR) },
    { at: 22, what: "lift the exports limit", run: () => changeQueue(db, "exports", { kind: "limit", limit: null }, OPERATOR) },
    { at: 24, what: "replay a dead job", run: () => replayOne(db, count) },
    { at: 26, what: "resume the other paused export", run: () => act({ state: "paused", queue: "exports" }, "resume", OPERATOR) },
  ];
  const t0 = Date.now();
  while (Date.now() < until) {
    n++;
    const tenantId = DEMO_TENANTS[n % DEMO_TENANTS.length]!.id;
    try {
      if (n % 25 === 0) {
        await submit({ tenantId, type: "poison.crash", params: {} });
        report.poison++;
      } else await submit(smallJob(n, tenantId));
      const due = script.filter((s) => s.at * 1_000 <= Date.now() - t0);
      for (const s of due) {
        script.splice(script.indexOf(s), 1);
        log(`live: ${s.what}`);
        await s.run();
      }
    } catch (e) {
      log(`live: ${e instanceof Error ? e.message : String(e)}`);
    }
    await sleep(200);
  }
  // Let what runs settle — every poison job has crashed a worker at least once — then stop the
  // processes the way `npm start` does (SIGTERM: they drain).
  await waitFor(async () => {
    const [r] = await execute<{ n: number }>(
      db,
      sql`
      SELECT count(*)::int AS n FROM job_catalog c WHERE c.type = 'poison.crash' AND c.created_at > now() - interval '1 hour'
         AND NOT EXISTS (SELECT 1 FROM job_attempts a WHERE a.job_id = c.id AND a.outcome = 'lease_expired')`,
    );
    return r?.n === 0;
  }, 60_000);
  await sleep(2_000);
  running = false;
  const exited = [...procs].map((c) => new Promise((r) => c.once("exit", r)));
  for (const c of procs) c.kill("SIGTERM");
  await Promise.race([Promise.all(exited), sleep(15_000)]);
  for (const c of procs) c.kill("SIGKILL");
  return report;
}

/** The demo's job types at sizes that finish in seconds; a third of upstream calls time out. */
function smallJob(n: number, tenantId: string): EnqueueInput {
  switch (n % 5) {
    case 0:
      return { tenantId, type: "export.tenant_data", params: { dataset: "orders", rows: 2_500 * (2 + (n % 7)), chunkRows: 2_500 } };
    case 1:
      return { tenantId, type: "media.render", params: { assetId: `asset-${n}`, frames: 400 + (n % 9) * 300, resolution: "1080p" } };
    case 2:
      return { tenantId, type: "report.generate", params: { report: "daily_usage", period: "2026-11" } };
    default:
      return { tenantId, type: "upstream.call", params: { endpoint: "https://partner.example/api/v2/sync", timeoutRate: 0.35 } };
  }
}

async function replayOne(db: Db, count: (k: string) => void) {
  const [dead] = await execute<{ id: string; stateVersion: number }>(
    db,
    sql`
    SELECT id, state_version FROM jobs WHERE state = 'dead' AND type <> 'poison.crash' ORDER BY updated_at DESC LIMIT 1`,
  );
  if (!dead) return;
  const r = await transition(db, { jobId: dead.id, event: "replay", actor: OPERATOR, expected: { state: "dead", version: dead.stateVersion } });
  if (r.ok) count("replay");
}

// Bulk generator of realistic job histories for the console and supervisor
// benchmarks: millions of jobs whose rows, run records and event logs are what
// the write path would have produced. Each history is played through the state
// machine (lib/fsm) once, as a template; SQL then stamps the templates onto
// generated jobs, chunk by chunk, so 2M jobs take a few minutes, not hours.
//
// The write path's INSERT guard only admits queued jobs at version 0, so the
// generator's transactions skip triggers (session_replication_role = replica,
// superuser only). Every CHECK constraint still applies, and replaying each
// job's events reproduces its row (asserted by `auditSample`).
import postgres from "postgres";
import type { Sql } from "../lib/db/client";
import { uuidv7Expr } from "../lib/jobs/ids";
import { inWritePath } from "../lib/jobs/write-path";
import { replayEvents } from "../lib/fsm/replay";
import { isTerminal, step, submitted, type JobSnapshot } from "../lib/fsm/machine";
import type { ActorKind, JobEvent, JobState, RunOutcome } from "../lib/fsm/table";

type Ev = { seq: number; event: JobEvent; from: JobState | null; to: JobState; actor: ActorKind; attempt: number; version: number; offsetS: number };
type Run = { attempt: number; claimedS: number; startedS: number | null; finishedS: number | null; outcome: RunOutcome | null; errorClass: string | null };
type Pattern = { id: number; weight: number; maxAttempts: number; final: JobSnapshot; events: Ev[]; runs: Run[]; finishedS: number | null; notBeforeS: number };

const ERRORS = ["UpstreamTimeout", "OutOfMemoryError", "ValidationError", "RateLimited"];

/** Play `events` through the table from submit; times are seconds after creation. */
function playPattern(id: number, weight: number, maxAttempts: number, script: [JobEvent, ActorKind, number][], errorClass: string): Pattern {
  let job = submitted(maxAttempts);
  let t = 0;
  const events: Ev[] = [{ seq: 0, event: "submit", from: null, to: "queued", actor: "api", attempt: 0, version: 0, offsetS: 0 }];
  const runs: Run[] = [];
  let finishedS: number | null = null;
  let notBeforeS = 0;
  for (const [event, actor, dt] of script) {
    t += dt;
    const s = step(job, event, actor);
    if (s.opensRun) runs.push({ attempt: s.next.attempt, claimedS: t, startedS: null, finishedS: null, outcome: null, errorClass: null });
    const run = runs.at(-1);
    if (s.startsRun && run) run.startedS = t;
    if (s.closesRun && run) {
      run.finishedS = t;
      run.outcome = s.closesRun;
      run.errorClass = s.closesRun === "succeeded" || s.closesRun === "cancelled" ? null : errorClass;
    }
    if (s.transition.schedules === "retry_at") notBeforeS = t + 30;
    if (s.transition.schedules === "now") notBeforeS = t;
    events.push({ seq: events.length, event, from: job.state, to: s.next.state, actor, attempt: s.next.attempt, version: s.next.stateVersion, offsetS: t });
    job = s.next;
    if (isTerminal(job.state)) finishedS = t;
  }
  return { id, weight, maxAttempts, final: job, events, runs, finishedS, notBeforeS };
}

/** The histories and how often each occurs (weights per 1000 jobs). */
export function patterns(): Pattern[] {
  const ok: [JobEvent, ActorKind, number][] = [["claim", "worker", 2], ["start", "worker", 0.01], ["finish", "worker", 3]];
  const failThenRetry: [JobEvent, ActorKind, number][] = [["claim", "worker", 1], ["start", "worker", 0.01], ["fail", "worker", 5], ["retry", "supervisor", 30]];
  const stale: [JobEvent, ActorKind, number][] = [["claim", "worker", 1], ["start", "worker", 0.01], ["reclaim", "supervisor", 15]];
  const list: Pattern[] = [];
  let id = 0;
  const add = (weight: number, max: number, script: [JobEvent, ActorKind, number][], err = ERRORS[id % ERRORS.length]!) =>
    list.push(playPattern(id++, weight, max, script, err));
  add(800, 3, ok);
  add(60, 3, [...failThenRetry, ...ok]);
  add(20, 3, [...failThenRetry, ...failThenRetry, ...ok]);
  add(15, 3, [...stale, ...ok]);
  add(30, 3, [...failThenRetry, ...failThenRetry, ["claim", "worker", 1], ["start", "worker", 0.01], ["abandon", "worker", 4]]);
  add(10, 3, [["claim", "worker", 1], ["start", "worker", 0.01], ["abandon", "worker", 1]], "ValidationError");
  add(25, 3, [["cancel", "tenant", 20]]);
  add(10, 3, [["claim", "worker", 1], ["start", "worker", 0.01], ["cancel", "operator", 5], ["stop", "worker", 1]]);
  add(20, 3, []); // still queued (not due: see not_before_s below)
  add(9, 3, [["claim", "worker", 1], ["start", "worker", 0.01], ["fail", "worker", 5]]); // waiting for a retry
  // A job with a long history: 20 failed attempts, then dead. The detail page's worst case.
  const many: [JobEvent, ActorKind, number][] = [];
  for (let i = 1; i < 20; i++) many.push(...failThenRetry);
  add(1, 20, [...many, ["claim", "worker", 1], ["start", "worker", 0.01], ["abandon", "worker", 2]], "UpstreamTimeout");
  return list;
}

const TYPES: { type: string; queue: string; params: unknown }[] = [
  { type: "report.generate", queue: "default", params: { report: "daily_usage", period: "2026-11" } },
  { type: "export.tenant_data", queue: "exports", params: { dataset: "orders", rows: 50000, chunkRows: 10000, format: "csv" } },
  { type: "media.render", queue: "media", params: { assetId: "asset-7", frames: 2400, resolution: "1080p" } },
  { type: "upstream.call", queue: "default", params: { endpoint: "https://partner.example/api", timeoutRate: 0.3, failFirstAttempts: 0 } },
];

export const GEN_TENANTS = Array.from({ length: 20 }, (_, i) => (i === 0 ? "acme" : i === 1 ? "globex" : `tenant-${String(i).padStart(2, "0")}`));

/**
 * Insert `count` jobs with their runs and events, created over the last
 * `spanDays` days. Queued and retry_wait jobs are kept out of reach (not
 * before a year from now, on queues no benchmark worker serves), so the
 * history stays as generated while load runs beside it.
 */
export async function generate(sql: Sql, opts: { count: number; spanDays?: number; chunk?: number; log?: (s: string) => void }) {
  const span = (opts.spanDays ?? 30) * 86400;
  const chunk = opts.chunk ?? 100_000;
  const pats = patterns();
  for (const id of GEN_TENANTS) await sql`INSERT INTO tenants (id, name) VALUES (${id}, ${id}) ON CONFLICT DO NOTHING`;
  // Pattern tables: a slot per 1000 jobs picks the history.
  const slots: number[] = [];
  for (const p of pats) for (let i = 0; i < p.weight; i++) slots.push(p.id);
  const total = slots.length;
  await sql.begin(async (tx) => {
    await tx`DROP TABLE IF EXISTS gen_pattern, gen_event, gen_run, gen_slot`;
    await tx`CREATE UNLOGGED TABLE gen_slot (slot int PRIMARY KEY, pattern int)`;
    await tx`INSERT INTO gen_slot SELECT * FROM jsonb_to_recordset(${tx.json(slots.map((p, i) => ({ slot: i, pattern: p })) as never)}) AS x(slot int, pattern int)`;
    await tx`CREATE UNLOGGED TABLE gen_pattern (pattern int PRIMARY KEY, state job_state, attempt int, max_attempts int, version int, finished_s float8, not_before_s float8, last_s float8)`;
    await tx`INSERT INTO gen_pattern SELECT * FROM jsonb_to_recordset(${tx.json(
      pats.map((p) => ({
        pattern: p.id, state: p.final.state, attempt: p.final.attempt, max_attempts: p.maxAttempts, version: p.final.stateVersion,
        finished_s: p.finishedS,
        // Not due for a year: no benchmark worker or supervisor moves the generated history.
        not_before_s: p.final.state === "queued" || p.final.state === "retry_wait" ? 365 * 86400 : p.notBeforeS,
        last_s: p.events.at(-1)!.offsetS,
      })) as never,
    )}) AS x(pattern int, state job_state, attempt int, max_attempts int, version int, finished_s float8, not_before_s float8, last_s float8)`;
    await tx`CREATE UNLOGGED TABLE gen_event (pattern int, seq int, event job_event, from_state job_state, to_state job_state, actor actor_kind, attempt int, version int, offset_s float8)`;
    await tx`INSERT INTO gen_event SELECT * FROM jsonb_to_recordset(${tx.json(
      pats.flatMap((p) => p.events.map((e) => ({ pattern: p.id, seq: e.seq, event: e.event, from_state: e.from, to_state: e.to, actor: e.actor, attempt: e.attempt, version: e.version, offset_s: e.offsetS }))) as never,
    )}) AS x(pattern int, seq int, event job_event, from_state job_state, to_state job_state, actor actor_kind, attempt int, version int, offset_s float8)`;
    await tx`CREATE UNLOGGED TABLE gen_run (pattern int, attempt int, claimed_s float8, started_s float8, finished_s float8, outcome run_outcome, error_class text)`;
    await tx`INSERT INTO gen_run SELECT * FROM jsonb_to_recordset(${tx.json(
      pats.flatMap((p) => p.runs.map((r) => ({ pattern: p.id, attempt: r.attempt, claimed_s: r.claimedS, started_s: r.startedS, finished_s: r.finishedS, outcome: r.outcome, error_class: r.errorClass }))) as never,
    )}) AS x(pattern int, attempt int, claimed_s float8, started_s float8, finished_s float8, outcome run_outcome, error_class text)`;
  });
  const types = TYPES.map((t, i) => ({ i, ...t }));
  const [{ base }] = (await sql`SELECT coalesce(max(created_at), now()) AS base, now() AS now FROM jobs`) as unknown as [{ base: Date }];
  void base;
  for (let from = 0; from < opts.count; from += chunk) {
    const n = Math.min(chunk, opts.count - from);
    await inWritePath(sql, async (tx) => {
      await tx`SET LOCAL session_replication_role = replica`;
      await tx`SET LOCAL synchronous_commit = off`;
      await tx`CREATE TEMP TABLE gen_chunk ON COMMIT DROP AS
        SELECT gen_random_uuid() AS id, g AS i, s.pattern,
               now() - ${span} * interval '1 second' * (1 - (g::float8 / ${opts.count})) - interval '1 hour' AS created_at,
               (${tx.json(GEN_TENANTS as never)}::jsonb ->> ((g * 7919) % ${GEN_TENANTS.length})::int)::text AS tenant_id,
               ((g * 31) % ${types.length})::int AS type_i
          FROM generate_series(${from}::bigint, ${from + n - 1}::bigint) g JOIN gen_slot s ON s.slot = (g * 7) % ${total}`;
      await tx`
        INSERT INTO jobs (id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version, lease_owner,
                          heartbeat_at, not_before, params, created_at, updated_at, finished_at)
        SELECT c.id, c.tenant_id, t.type, CASE WHEN p.state IN ('queued', 'retry_wait') THEN 'gen-' || t.queue ELSE t.queue END,
               (c.i % 3)::smallint, p.state, p.attempt, p.max_attempts, p.version, NULL,
               CASE WHEN p.attempt > 0 THEN c.created_at + p.last_s * interval '1 second' END,
               c.created_at + p.not_before_s * interval '1 second', t.params,
               c.created_at, c.created_at + p.last_s * interval '1 second',
               c.created_at + p.finished_s * interval '1 second'
          FROM gen_chunk c JOIN gen_pattern p USING (pattern)
          JOIN jsonb_to_recordset(${tx.json(types as never)}) AS t(i int, type text, queue text, params jsonb) ON t.i = c.type_i`;
      await tx`
        INSERT INTO job_runs (job_id, attempt, tenant_id, worker_id, claimed_at, started_at, finished_at, outcome, error_class, error_message, result)
        SELECT c.id, r.attempt, c.tenant_id, 'gen-worker-' || (c.i % 8),
               c.created_at + r.claimed_s * interval '1 second', c.created_at + r.started_s * interval '1 second',
               c.created_at + r.finished_s * interval '1 second', r.outcome, r.error_class,
               CASE WHEN r.error_class IS NOT NULL THEN r.error_class || ': generated failure of attempt ' || r.attempt END,
               CASE WHEN r.outcome = 'succeeded' THEN '{"ok":true}'::jsonb END
          FROM gen_chunk c JOIN gen_run r USING (pattern)`;
      await tx`
        INSERT INTO job_events (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, payload)
        SELECT c.id, c.tenant_id, e.event, e.from_state, e.to_state, e.actor,
               CASE e.actor WHEN 'worker' THEN 'gen-worker-' || (c.i % 8) WHEN 'supervisor' THEN 'gen-sup' WHEN 'api' THEN 'gen-api' ELSE 'gen-' || e.actor END,
               e.attempt, e.version, c.created_at + e.offset_s * interval '1 second',
               CASE WHEN e.event = 'submit' THEN jsonb_build_object('maxAttempts', p.max_attempts) END
          FROM gen_chunk c JOIN gen_event e USING (pattern) JOIN gen_pattern p USING (pattern)`;
    });
    opts.log?.(`generated ${from + n} / ${opts.count} jobs`);
  }
  await sql`DROP TABLE IF EXISTS gen_pattern, gen_event, gen_run, gen_slot`;
  await sql`ANALYZE jobs`;
  await sql`ANALYZE job_runs`;
  await sql`ANALYZE job_events`;
}

/** Replay a random sample of generated jobs' events against their rows; returns the problems. */
export async function auditSample(sql: Sql, n = 200): Promise<string[]> {
  const ids = await sql<{ id: string; state: JobState; attempt: number; stateVersion: number; maxAttempts: number }[]>`
    SELECT id, state, attempt, state_version, max_attempts FROM jobs TABLESAMPLE SYSTEM (1) LIMIT ${n}`;
  const problems: string[] = [];
  for (const j of ids) {
    const events = await sql<{ event: JobEvent; fromState: JobState | null; toState: JobState; actorKind: ActorKind; attempt: number; stateVersion: number }[]>`
      SELECT event, from_state, to_state, actor_kind, attempt, state_version FROM job_events WHERE job_id = ${j.id} ORDER BY state_version`;
    const r = replayEvents(events, j.maxAttempts);
    if (!r.ok) problems.push(`${j.id}: ${r.problem}`);
    else if (r.job.state !== j.state || r.job.attempt !== j.attempt || r.job.stateVersion !== j.stateVersion) problems.push(`${j.id}: replay differs`);
    const [runs] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM job_runs WHERE job_id = ${j.id}`;
    if (runs?.n !== j.attempt) problems.push(`${j.id}: ${runs?.n} runs for attempt ${j.attempt}`);
  }
  return problems;
}

/** Insert `n` queued report jobs with their submit events, as `enqueue` would (in bulk, through the write path's mark). */
export async function prefillJobscope(url: string, n: number, queue = "bench", opts: { vacuum?: boolean } = {}) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    for (let done = 0; done < n; done += 20_000) {
      const k = Math.min(20_000, n - done);
      // What `enqueue` writes, set-based: the catalog row (the submit) and the live row, with
      // time-ordered ids (lib/jobs/ids.ts: 48 bits of milliseconds, then random bits).
      await inWritePath(sql, async (tx) => {
        await tx`
          WITH c AS (
            INSERT INTO job_catalog (id, tenant_id, type, queue, priority, max_attempts, params, submitted_by_kind, submitted_by, created_at, not_before)
            SELECT ${tx.unsafe(uuidv7Expr("now()"))}, 'acme', 'report.generate', ${queue}, 0, 3, '{"report":"daily_usage","period":"2026-11"}'::jsonb, 'api', 'bench', now(), now()
              FROM generate_series(1, ${k}) g
            RETURNING *)
          INSERT INTO jobs_live (id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version, not_before, params, created_at, updated_at)
          SELECT id, tenant_id, type, queue, priority, 'queued', 0, max_attempts, 0, not_before, params, created_at, created_at FROM c ORDER BY id`;
      });
    }
    if (opts.vacuum !== false) await sql`VACUUM ANALYZE jobs_live, job_catalog`;
  } finally {
    await sql.end();
  }
}


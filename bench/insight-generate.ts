// Bulk synthetic histories for the insight benchmark (bench/insight-explain.ts).
// The histories themselves are bench/generate.ts's `patterns()` (issue 6's
// generator: each played once through the state machine); this stamps them
// onto jobs chunk by chunk in SQL, with each job's clock stretched by its own
// factor so durations spread out. Its transactions are marked as the write
// path and skip triggers (superuser only); every CHECK constraint still holds,
// and replaying a job's events reproduces its row.
import type { Sql } from "../lib/db/client";
import { patterns } from "./generate";

const TYPES = [
  { type: "report.generate", queue: "default", params: { report: "daily_usage", period: "2026-11" } },
  { type: "export.tenant_data", queue: "exports", params: { dataset: "orders", rows: 50000 } },
  { type: "media.render", queue: "media", params: { assetId: "asset-7", frames: 2400 } },
  { type: "upstream.call", queue: "default", params: { endpoint: "https://partner.example/api", timeoutRate: 0.3 } },
];
const TENANTS = Array.from({ length: 20 }, (_, i) => (i === 0 ? "acme" : i === 1 ? "globex" : `tenant-${String(i).padStart(2, "0")}`));

export async function generateInsightData(sql: Sql, opts: { count: number; spanDays: number; chunk?: number; log?: (s: string) => void }) {
  const pats = patterns();
  const chunk = opts.chunk ?? 100_000;
  const span = opts.spanDays * 86_400;
  for (const id of TENANTS) await sql`INSERT INTO tenants (id, name) VALUES (${id}, ${id}) ON CONFLICT DO NOTHING`;
  const slots = pats.flatMap((p) => Array.from({ length: p.weight }, () => p.id));
  await sql`DROP TABLE IF EXISTS ig_slot, ig_pattern, ig_event, ig_run`;
  await sql`CREATE UNLOGGED TABLE ig_slot AS SELECT * FROM jsonb_to_recordset(${sql.json(slots.map((p, i) => ({ slot: i, pattern: p })) as never)}) AS x(slot int, pattern int)`;
  await sql`CREATE UNLOGGED TABLE ig_pattern AS SELECT * FROM jsonb_to_recordset(${sql.json(
    pats.map((p) => ({
      pattern: p.id,
      state: p.final.state,
      attempt: p.final.attempt,
      max_attempts: p.final.maxAttempts,
      version: p.final.stateVersion,
      finished_s: p.finishedS,
      not_before_s: p.final.state === "queued" || p.final.state === "retry_wait" ? 365 * 86_400 : p.notBeforeS,
      last_s: p.events.at(-1)!.offsetS,
    })) as never,
  )}) AS x(pattern int, state job_state, attempt int, max_attempts int, version int, finished_s float8, not_before_s float8, last_s float8)`;
  await sql`CREATE UNLOGGED TABLE ig_event AS SELECT * FROM jsonb_to_recordset(${sql.json(
    pats.flatMap((p) => p.events.map((e) => ({ pattern: p.id, event: e.event, from_state: e.from, to_state: e.to, actor: e.actor, attempt: e.attempt, version: e.version, offset_s: e.offsetS }))) as never,
  )}) AS x(pattern int, event job_event, from_state job_state, to_state job_state, actor actor_kind, attempt int, version int, offset_s float8)`;
  await sql`CREATE UNLOGGED TABLE ig_run AS SELECT * FROM jsonb_to_recordset(${sql.json(
    pats.flatMap((p) => p.runs.map((r) => ({ pattern: p.id, attempt: r.attempt, claimed_s: r.claimedS, started_s: r.startedS, finished_s: r.finishedS, outcome: r.outcome, error_class: r.errorClass }))) as never,
  )}) AS x(pattern int, attempt int, claimed_s float8, started_s float8, finished_s float8, outcome run_outcome, error_class text)`;
  const total = slots.length;
  for (let from = 0; from < opts.count; from += chunk) {
    const n = Math.min(chunk, opts.count - from);
    await sql.begin(async (tx) => {
      await tx`SELECT set_config('jobscope.write_path', 'on', true)`;
      await tx`SET LOCAL session_replication_role = replica`;
      await tx`SET LOCAL synchronous_commit = off`;
      // Jobs evenly over the span, newest an hour ago; a per-job clock factor of 1..60 (seconds become up to minutes).
      await tx`CREATE TEMP TABLE ig_chunk ON COMMIT DROP AS
        SELECT gen_random_uuid() AS id, g AS i, s.pattern,
               now() - interval '1 hour' - ${span}::float8 * interval '1 second' * (1 - g::float8 / ${opts.count}::int) AS created_at,
               (${TENANTS}::text[])[1 + (g::bigint * 7919) % ${TENANTS.length}::int] AS tenant_id,
               (g * 31) % ${TYPES.length}::int AS type_i,
               1 + (g::bigint * 104729 % 60)::int AS scale
          FROM generate_series(${from}::int, ${from + n - 1}::int) g JOIN ig_slot s ON s.slot = (g * 7) % ${total}::int`;
      await tx`
        INSERT INTO jobs (id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version, lease_owner,
                          heartbeat_at, not_before, params, created_at, updated_at, finished_at)
        SELECT c.id, c.tenant_id, t.type, CASE WHEN p.state IN ('queued', 'retry_wait') THEN 'gen-' || t.queue ELSE t.queue END,
               (c.i % 3)::smallint, p.state, p.attempt, p.max_attempts, p.version, NULL,
               CASE WHEN p.attempt > 0 THEN c.created_at + c.scale * p.last_s * interval '1 second' END,
               c.created_at + (CASE WHEN p.not_before_s > 86400 THEN p.not_before_s ELSE c.scale * p.not_before_s END) * interval '1 second', t.params,
               c.created_at, c.created_at + c.scale * p.last_s * interval '1 second',
               c.created_at + c.scale * p.finished_s * interval '1 second'
          FROM ig_chunk c JOIN ig_pattern p USING (pattern)
          JOIN jsonb_to_recordset(${tx.json(TYPES.map((t, i) => ({ i, ...t })) as never)}) AS t(i int, type text, queue text, params jsonb) ON t.i = c.type_i`;
      await tx`
        INSERT INTO job_runs (job_id, attempt, tenant_id, worker_id, claimed_at, started_at, finished_at, outcome, error_class, error_message, result)
        SELECT c.id, r.attempt, c.tenant_id, 'gen-worker-' || ((c.i + r.attempt) % 8),
               c.created_at + c.scale * r.claimed_s * interval '1 second', c.created_at + c.scale * r.started_s * interval '1 second',
               c.created_at + c.scale * r.finished_s * interval '1 second', r.outcome, r.error_class,
               CASE WHEN r.error_class IS NOT NULL THEN r.error_class || ': generated failure of attempt ' || r.attempt END,
               CASE WHEN r.outcome = 'succeeded' THEN '{"ok":true}'::jsonb END
          FROM ig_chunk c JOIN ig_run r USING (pattern)`;
      await tx`
        INSERT INTO job_events (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, payload)
        SELECT c.id, c.tenant_id, e.event, e.from_state, e.to_state, e.actor,
               CASE e.actor WHEN 'worker' THEN 'gen-worker-' || ((c.i + e.attempt) % 8) WHEN 'supervisor' THEN 'gen-sup' ELSE 'gen-' || e.actor END,
               e.attempt, e.version, c.created_at + c.scale * e.offset_s * interval '1 second',
               CASE WHEN e.event = 'submit' THEN jsonb_build_object('maxAttempts', p.max_attempts) END
          FROM ig_chunk c JOIN ig_event e USING (pattern) JOIN ig_pattern p USING (pattern)`;
    });
    opts.log?.(`generated ${from + n} / ${opts.count} jobs`);
  }
  await sql`DROP TABLE IF EXISTS ig_slot, ig_pattern, ig_event, ig_run`;
  await sql`VACUUM ANALYZE jobs`;
  await sql`VACUUM ANALYZE job_runs`;
  await sql`VACUUM ANALYZE job_events`;
}

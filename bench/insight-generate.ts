// Bulk synthetic histories for the insight benchmark (bench/insight-explain.ts), in the storage of
// drizzle/0012 (docs/decisions.md, "The narrow hot path"). The histories are bench/generate.ts's
// `patterns()` (each played once through the state machine); this stamps them
// onto jobs in SQL, each job's clock stretched by its own factor so durations spread out, and
// writes what the write path would have written:
//   job_catalog   one row per job, in submit order;
//   job_attempts  one row per ended attempt, in the order the attempts ended (the BRIN on
//                 finished_at relies on it), with the worker's claim, start and closing event;
//   job_log       the transitions no worker applied, in time order;
//   jobs_live     the jobs whose history has not finished (kept out of reach: not before a year
//                 from now, on queues no benchmark worker serves).
// Jobs end evenly over the span up to two minutes ago, so every window up to now is as busy as
// the rest. The transactions are marked as the write path and skip triggers (superuser only);
// every CHECK constraint still holds, and replaying a job's events reproduces its row.
import type { Db } from "../lib/db/client";
import { uuidv7Expr } from "../lib/jobs/ids";
import {
  at,
  dropWorkTables,
  GEN_TENANTS,
  inChunks,
  patterns,
  prepareGeneration,
  recordHistories,
  recordTable,
  stampHistories,
  vacuumAnalyze,
} from "./generate";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

const TYPES = [
  { type: "report.generate", queue: "default", params: { report: "daily_usage", period: "2026-11" } },
  { type: "export.tenant_data", queue: "exports", params: { dataset: "orders", rows: 50000 } },
  { type: "media.render", queue: "media", params: { assetId: "asset-7", frames: 2400 } },
  { type: "upstream.call", queue: "default", params: { endpoint: "https://partner.example/api", timeoutRate: 0.3 } },
];

export async function generateInsightData(db: Db, opts: { count: number; spanDays: number; chunk?: number; log?: (s: string) => void }) {
  const pats = patterns();
  const chunk = opts.chunk ?? 100_000;
  const span = opts.spanDays * 86_400;
  const slots = await prepareGeneration(db, "ig", pats, opts.spanDays);
  await recordTable(
    db,
    "ig_pattern",
    pats.map((p) => ({
      pattern: p.id,
      state: p.final.state,
      attempt: p.final.attempt,
      max_attempts: p.final.maxAttempts,
      version: p.final.stateVersion,
      last_s: p.events.at(-1)!.offsetS,
      live: p.finishedS === null,
    })),
    `pattern int, state job_state, attempt int, max_attempts int, version int, last_s float8, live boolean`,
  );
  await recordHistories(db, "ig", pats);
  const total = slots.length;
  const types = TYPES.map((t, i) => ({ i, ...t }));
  await inChunks(db, opts.count, chunk, opts.log, async (tx, from, n) => {
    // A per-job clock factor of 1..60 (seconds become up to minutes); the job's last transition
    // falls evenly over the span, the newest two minutes ago.
    await execute(
      tx,
      sql`CREATE TEMP TABLE ig_chunk ON COMMIT DROP AS
      SELECT g AS i, s.pattern, p.live, z.scale, z.created_at, ${sql.raw(uuidv7Expr("z.created_at"))} AS id,
             (${sql.param(GEN_TENANTS)}::text[])[1 + (g::bigint * 7919) % ${GEN_TENANTS.length}::int] AS tenant_id,
             (g * 31) % ${TYPES.length}::int AS type_i
        FROM generate_series(${from}::int, ${from + n - 1}::int) g
        JOIN ig_slot s ON s.slot = (g * 7) % ${total}::int
        JOIN ig_pattern p ON p.pattern = s.pattern
        CROSS JOIN LATERAL (SELECT 1 + (g::bigint * 104729 % 60)::int AS scale) f
        CROSS JOIN LATERAL (SELECT f.scale,
                                   now() - interval '2 minutes' - ${span}::float8 * interval '1 second' * (1 - g::float8 / ${opts.count}::int)
                                     - f.scale * p.last_s * interval '1 second' AS created_at) z`,
    );
    await execute(
      tx,
      sql`
      INSERT INTO job_catalog (id, tenant_id, type, queue, priority, max_attempts, params, idempotency_key, submitted_by_kind, submitted_by, created_at, not_before)
      SELECT c.id, c.tenant_id, t.type, CASE WHEN c.live THEN 'gen-' || t.queue ELSE t.queue END, (c.i % 3)::smallint, p.max_attempts, t.params,
             NULL, 'api', 'gen-api', c.created_at, c.created_at
        FROM ig_chunk c JOIN ig_pattern p USING (pattern)
        JOIN jsonb_to_recordset(${sql.param(types as never)}) AS t(i int, type text, queue text, params jsonb) ON t.i = c.type_i
       ORDER BY c.created_at`,
    );
    await execute(
      tx,
      sql`
      INSERT INTO jobs_live (id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version, not_before, params, created_at, updated_at)
      SELECT k.id, k.tenant_id, k.type, k.queue, k.priority, p.state, p.attempt, p.max_attempts, p.version,
             now() + interval '365 days', k.params, k.created_at, c.created_at + c.scale * p.last_s * interval '1 second'
        FROM ig_chunk c JOIN ig_pattern p USING (pattern) JOIN job_catalog k ON k.id = c.id
       WHERE c.live`,
    );
    await stampHistories(tx, "ig", { worker: "'gen-worker-' || ((c.i + a.attempt) % 8)", retryAt: sql.raw(at("a.retry_s")) });
  });
  await dropWorkTables(db, "ig");
  await vacuumAnalyze(db);
}

// Bulk generator of realistic job histories for the console and supervisor benchmarks, written in
// the storage of drizzle/0012 (docs/decisions.md, "The narrow hot path"): millions of jobs whose rows
// are what the write path would have written. Each history is played through the state machine
// (lib/fsm) once, as a template, and split the way the write path stores it:
//   job_catalog   one row per job (the submit), in id order;
//   jobs_live     the jobs whose history has not finished, kept out of reach (not before a year
//                 from now, on queues no benchmark worker serves);
//   job_attempts  one row per ended attempt, with the worker's claim, start and closing event, in
//                 the order the attempts ended (the BRIN on finished_at relies on it);
//   job_log       every other transition (supervisor, operator, tenant), in time order, in its
//                 day partitions.
// SQL then stamps the templates onto generated jobs, chunk by chunk (INSERT … SELECT from
// generate_series), with UUIDv7 ids back-dated to each job's creation and a per-job clock factor
// so durations spread out. The transactions are marked as the write path and skip triggers
// (superuser only); every CHECK constraint still holds, and `checkSample` runs a sample through
// lib/integrity's checker.
import { closeDb, connect, type Db, type Tx } from "../lib/db/client";
import { ensureEventPartitions } from "../lib/db/partitions";
import { isLeased, isTerminal, step, submitted, type JobSnapshot } from "../lib/fsm/machine";
import type { ActorKind, JobEvent, JobState, RunOutcome } from "../lib/fsm/table";
import { checkJobs } from "../lib/integrity/check";
import { uuidv7Expr } from "../lib/jobs/ids";
import { insertQueuedJobs, withDirectWrites } from "../lib/jobs/direct-write";
import { sql, type SQL } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

type Ev = { seq: number; event: JobEvent; from: JobState | null; to: JobState; actor: ActorKind; attempt: number; version: number; offsetS: number };
type Run = {
  attempt: number;
  claimedS: number;
  startedS: number | null;
  finishedS: number | null;
  outcome: RunOutcome | null;
  errorClass: string | null;
};
/** An ended attempt as job_attempts stores it: its claim's version and, when a worker applied it, its closing transition. */
type EndedAttempt = {
  attempt: number;
  claimedS: number;
  claimVersion: number;
  startedS: number | null;
  finishedS: number;
  outcome: RunOutcome;
  /** The job's budget after the closing transition. */
  maxAttempts: number;
  end: { event: JobEvent; from: JobState; to: JobState; version: number } | null;
  /** A worker's `fail`: when the retry is due. */
  retryS: number | null;
  errorClass: string | null;
};
/** A transition no worker applied, as job_log stores it. */
type Logged = { event: JobEvent; from: JobState; to: JobState; actor: ActorKind; attempt: number; version: number; atS: number; maxAttempts: number };
type Pattern = {
  id: number;
  weight: number;
  maxAttempts: number;
  final: JobSnapshot;
  events: Ev[];
  runs: Run[];
  finishedS: number | null;
  notBeforeS: number;
  attempts: EndedAttempt[];
  log: Logged[];
  /** The open attempt of a job that ends leased (paused). */
  open: { claimedS: number; startedS: number | null; version: number } | null;
};

const ERRORS = ["UpstreamTimeout", "OutOfMemoryError", "ValidationError", "RateLimited"];
/** Seconds a failed attempt waits before its retry is due. */
const RETRY_AFTER_S = 30;

/** A history after its submit: each event, who applies it, and the seconds since the one before. */
type Script = [JobEvent, ActorKind, number][];

/** Play `script` through the table from submit; times are seconds after creation. */
function playPattern(id: number, weight: number, maxAttempts: number, script: Script, errorClass: string): Pattern {
  let job = submitted(maxAttempts);
  let t = 0;
  const events: Ev[] = [{ seq: 0, event: "submit", from: null, to: "queued", actor: "api", attempt: 0, version: 0, offsetS: 0 }];
  const runs: Run[] = [];
  const attempts: EndedAttempt[] = [];
  const log: Logged[] = [];
  let open: Pattern["open"] = null;
  let finishedS: number | null = null;
  let notBeforeS = 0;
  for (const [event, actor, dt] of script) {
    t += dt;
    const s = step(job, event, actor);
    const n = s.next;
    if (s.opensRun) {
      runs.push({ attempt: n.attempt, claimedS: t, startedS: null, finishedS: null, outcome: null, errorClass: null });
      open = { claimedS: t, startedS: null, version: n.stateVersion };
    }
    const run = runs.at(-1);
    if (s.startsRun && run && open) run.startedS = open.startedS = t;
    if (s.closesRun && run && open) {
      run.finishedS = t;
      run.outcome = s.closesRun;
      run.errorClass = s.closesRun === "succeeded" || s.closesRun === "cancelled" ? null : errorClass;
      const byWorker = actor === "worker";
      attempts.push({
        attempt: run.attempt,
        claimedS: open.claimedS,
        claimVersion: open.version,
        startedS: open.startedS,
        finishedS: t,
        outcome: s.closesRun,
        maxAttempts: n.maxAttempts,
        end: byWorker ? { event, from: job.state, to: n.state, version: n.stateVersion } : null,
        retryS: byWorker && s.transition.schedules === "retry_at" ? t + RETRY_AFTER_S : null,
        errorClass: run.errorClass,
      });
      open = null;
    }
    if (actor !== "worker")
      log.push({ event, from: job.state, to: n.state, actor, attempt: n.attempt, version: n.stateVersion, atS: t, maxAttempts: n.maxAttempts });
    if (s.transition.schedules === "retry_at") notBeforeS = t + RETRY_AFTER_S;
    if (s.transition.schedules === "now") notBeforeS = t;
    events.push({ seq: events.length, event, from: job.state, to: n.state, actor, attempt: n.attempt, version: n.stateVersion, offsetS: t });
    job = n;
    finishedS = isTerminal(job.state) ? t : null;
  }
  return { id, weight, maxAttempts, final: job, events, runs, finishedS, notBeforeS, attempts, log, open: isLeased(job.state) ? open : null };
}

const ok: Script = [
  ["claim", "worker", 2],
  ["start", "worker", 0.01],
  ["finish", "worker", 3],
];
/** Claimed after a second in the queue and started at once; each history below goes on from there. */
const started: Script = [
  ["claim", "worker", 1],
  ["start", "worker", 0.01],
];
const failThenRetry: Script = [...started, ["fail", "worker", 5], ["retry", "supervisor", 30]];
const stale: Script = [...started, ["reclaim", "supervisor", 15]];
const dies: Script = [...started, ["abandon", "worker", 1]];

/** The histories and how often each occurs (weights per 1000 jobs). */
export function patterns(): Pattern[] {
  const list: Pattern[] = [];
  let id = 0;
  const add = (weight: number, max: number, script: Script, err = ERRORS[id % ERRORS.length]!) =>
    list.push(playPattern(id++, weight, max, script, err));
  add(800, 3, ok);
  add(60, 3, [...failThenRetry, ...ok]);
  add(20, 3, [...failThenRetry, ...failThenRetry, ...ok]);
  add(15, 3, [...stale, ...ok]);
  add(30, 3, [...failThenRetry, ...failThenRetry, ...started, ["abandon", "worker", 4]]);
  add(10, 3, dies, "ValidationError");
  add(25, 3, [["cancel", "tenant", 20]]);
  add(10, 3, [...started, ["cancel", "operator", 5], ["stop", "worker", 1]]);
  add(20, 3, []); // still queued (not due: see not_before below)
  add(9, 3, [...started, ["fail", "worker", 5]]); // waiting for a retry
  // A job with a long history: 20 failed attempts, then dead. The detail page's worst case.
  const many: Script = [];
  for (let i = 1; i < 20; i++) many.push(...failThenRetry);
  add(1, 20, [...many, ...started, ["abandon", "worker", 2]], "UpstreamTimeout");
  return list;
}

/**
 * Histories only this generator writes (bench/insight-generate.ts stamps `patterns()` alone): an
 * operator's replay of a dead job, which then succeeds or dies again (two dead finishes, the first
 * superseded), and a job an operator paused (a live row holding its lease).
 */
function consolePatterns(from: number): Pattern[] {
  const replay: Script = [...dies, ["replay", "operator", 600]];
  return [
    playPattern(from, 2, 3, [...replay, ...ok], "ValidationError"),
    playPattern(from + 1, 2, 3, [...replay, ...dies], "ValidationError"),
    playPattern(from + 2, 1, 3, [...started, ["pause", "operator", 20]], "UpstreamTimeout"),
  ];
}

const TYPES: { type: string; queue: string; params: unknown }[] = [
  { type: "report.generate", queue: "default", params: { report: "daily_usage", period: "2026-11" } },
  { type: "export.tenant_data", queue: "exports", params: { dataset: "orders", rows: 50000, chunkRows: 10000, format: "csv" } },
  { type: "media.render", queue: "media", params: { assetId: "asset-7", frames: 2400, resolution: "1080p" } },
  { type: "upstream.call", queue: "default", params: { endpoint: "https://partner.example/api", timeoutRate: 0.3, failFirstAttempts: 0 } },
];

export const GEN_TENANTS = Array.from({ length: 20 }, (_, i) => (i === 0 ? "acme" : i === 1 ? "globex" : `tenant-${String(i).padStart(2, "0")}`));

export const actorId = (a: ActorKind) => (a === "supervisor" ? "gen-sup" : `gen-${a}`);

/** A generator's work tables, `<prefix>_slot` and the others, which its jobs are stamped from. */
const WORK_TABLES = ["slot", "pattern", "attempt", "log"];

export async function dropWorkTables(db: Db, prefix: string) {
  await execute(
    db,
    sql`DROP TABLE IF EXISTS ${sql.join(
      WORK_TABLES.map((t) => sql.identifier(`${prefix}_${t}`)),
      sql`, `,
    )}`,
  );
}

/** An unlogged work table of `rows`, its columns named and typed by `columns` (constant text, never input). */
export async function recordTable(db: Db, name: string, rows: object[], columns: string) {
  await execute(
    db,
    sql`CREATE UNLOGGED TABLE ${sql.identifier(name)} AS SELECT * FROM jsonb_to_recordset(${sql.param(rows as never)}) AS x(${sql.raw(columns)})`,
  );
}

/**
 * What a generation starts from: the tenants, a day partition of job_log for every day of the span
 * (the longest histories reach further back), no work tables of an earlier run, and `<prefix>_slot`,
 * which deals the patterns out by weight (slot → pattern). Returns the slots.
 */
export async function prepareGeneration(db: Db, prefix: string, pats: { id: number; weight: number }[], spanDays: number) {
  for (const id of GEN_TENANTS) await execute(db, sql`INSERT INTO tenants (id, name) VALUES (${id}, ${id}) ON CONFLICT DO NOTHING`);
  await ensureEventPartitions(db, { daysBack: spanDays + 2 });
  await dropWorkTables(db, prefix);
  const slots = pats.flatMap((p) => Array.from({ length: p.weight }, () => p.id));
  await recordTable(
    db,
    `${prefix}_slot`,
    slots.map((pattern, slot) => ({ slot, pattern })),
    "slot int, pattern int",
  );
  return slots;
}

/**
 * The work tables of what each pattern's history writes besides its live row: `<prefix>_attempt`,
 * its ended attempts, and `<prefix>_log`, the transitions no worker applied.
 */
export async function recordHistories(db: Db, prefix: string, pats: Pattern[]) {
  await recordTable(
    db,
    `${prefix}_attempt`,
    pats.flatMap((p) =>
      p.attempts.map((a) => ({
        pattern: p.id,
        attempt: a.attempt,
        claimed_s: a.claimedS,
        claim_version: a.claimVersion,
        started_s: a.startedS,
        finished_s: a.finishedS,
        outcome: a.outcome,
        max_attempts: a.maxAttempts,
        end_event: a.end?.event ?? null,
        end_from: a.end?.from ?? null,
        end_to: a.end?.to ?? null,
        end_version: a.end?.version ?? null,
        retry_s: a.retryS,
        error_class: a.errorClass,
        // The failure a live job waits on: its retry is the live row's not_before.
        retry_far: p.finishedS === null && a.attempt === p.final.attempt && a.retryS !== null,
      })),
    ),
    `pattern int, attempt int, claimed_s float8, claim_version int, started_s float8, finished_s float8, outcome run_outcome, max_attempts int,
           end_event job_event, end_from job_state, end_to job_state, end_version int, retry_s float8, error_class text, retry_far boolean`,
  );
  await recordTable(
    db,
    `${prefix}_log`,
    pats.flatMap((p) =>
      p.log.map((e) => ({
        pattern: p.id,
        event: e.event,
        from_state: e.from,
        to_state: e.to,
        actor: e.actor,
        actor_id: actorId(e.actor),
        attempt: e.attempt,
        version: e.version,
        at_s: e.atS,
        max_attempts: e.maxAttempts,
      })),
    ),
    `pattern int, event job_event, from_state job_state, to_state job_state, actor actor_kind, actor_id text, attempt int, version int, at_s float8, max_attempts int`,
  );
}

/** The steady state of insert-only tables under autovacuum: statistics, and visibility maps for index-only scans. */
export async function vacuumAnalyze(db: Db) {
  for (const t of TABLES) await execute(db, sql`VACUUM ANALYZE ${sql.identifier(t)}`);
}

/** The SQL of a stamped job's time: `s` seconds into its pattern, on the job's own clock (`c` is its row of the chunk). */
export const at = (s: string) => `c.created_at + c.scale * ${s} * interval '1 second'`;

/**
 * Stamp the histories of a chunk's jobs (`<prefix>_chunk`): their ended attempts from `<prefix>_attempt`,
 * in the order the attempts ended, and the transitions no worker applied from `<prefix>_log`, in time
 * order. `worker` is the SQL of the worker of attempt `a.attempt`, `retryAt` of a failed attempt's retry time.
 */
export async function stampHistories(tx: Tx, prefix: string, of: { worker: string; retryAt: SQL }) {
  const chunk = sql.identifier(`${prefix}_chunk`);
  await execute(
    tx,
    sql`
      INSERT INTO job_attempts (job_id, attempt, tenant_id, worker_id, claimed_at, claim_version, started_at, finished_at, outcome, max_attempts,
                                end_event, end_from, end_to, end_version, retry_at, error_class, error_message, result)
      SELECT c.id, a.attempt, c.tenant_id, ${sql.raw(of.worker)}, ${sql.raw(at("a.claimed_s"))}, a.claim_version,
             ${sql.raw(at("a.started_s"))}, ${sql.raw(at("a.finished_s"))}, a.outcome, a.max_attempts,
             a.end_event, a.end_from, a.end_to, a.end_version, ${of.retryAt},
             a.error_class, CASE WHEN a.error_class IS NOT NULL THEN a.error_class || ': generated failure of attempt ' || a.attempt END,
             CASE WHEN a.outcome = 'succeeded' THEN '{"ok":true}'::jsonb END
        FROM ${chunk} c JOIN ${sql.identifier(`${prefix}_attempt`)} a USING (pattern)
       ORDER BY 8`,
  );
  await execute(
    tx,
    sql`
      INSERT INTO job_log (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, payload, max_attempts)
      SELECT c.id, c.tenant_id, e.event, e.from_state, e.to_state, e.actor, e.actor_id, e.attempt, e.version, ${sql.raw(at("e.at_s"))}, NULL, e.max_attempts
        FROM ${chunk} c JOIN ${sql.identifier(`${prefix}_log`)} e USING (pattern)
       ORDER BY 10`,
  );
}

/**
 * Stamp `count` jobs chunk by chunk: `fill` writes jobs `from` to `from + n - 1` in one transaction,
 * marked as the write path, with triggers skipped (superuser only) and without waiting for the WAL flush.
 */
export async function inChunks(
  db: Db,
  count: number,
  chunk: number,
  log: ((s: string) => void) | undefined,
  fill: (tx: Tx, from: number, n: number) => Promise<void>,
) {
  for (let from = 0; from < count; from += chunk) {
    const n = Math.min(chunk, count - from);
    await withDirectWrites(db, async (tx) => {
      await execute(tx, sql`SET LOCAL session_replication_role = replica`);
      await execute(tx, sql`SET LOCAL synchronous_commit = off`);
      await fill(tx, from, n);
    });
    log?.(`generated ${from + n} / ${count} jobs`);
  }
}

/**
 * Insert `count` jobs with their attempts and transitions. Each job's last transition falls evenly
 * over the last `spanDays` days (the newest two minutes ago), its clock stretched by a factor of 1
 * to 60. Workers are per day (`gen-wMMDD-n`, eight a day), as worker ids are per process. Every tenth
 * job has an idempotency key (`gen-<n>`).
 */
export async function generate(
  db: Db,
  opts: {
    count: number;
    spanDays?: number;
    chunk?: number;
    log?: (s: string) => void;
    /** An SQL jsonb expression over the job's number `c.i`, merged into its params (bench/params-search.ts). */
    extraParams?: string;
  },
) {
  const spanDays = opts.spanDays ?? 30;
  const span = spanDays * 86400;
  const chunk = opts.chunk ?? 250_000;
  const pats = [...patterns()];
  pats.push(...consolePatterns(pats.length));
  const slots = await prepareGeneration(db, "gen", pats, spanDays);
  const types = TYPES.map((t, i) => ({ i, ...t }));
  // Not due for a year: no benchmark worker or supervisor moves the generated history.
  const [{ far, run }] = (await execute(db, sql`SELECT now() + interval '365 days' AS far, floor(random() * 1e6)::int AS run`)) as unknown as [
    { far: Date; run: number },
  ];
  await recordTable(
    db,
    "gen_pattern",
    pats.map((p) => ({
      pattern: p.id,
      state: p.final.state,
      attempt: p.final.attempt,
      submit_max: p.maxAttempts,
      max_attempts: p.final.maxAttempts,
      version: p.final.stateVersion,
      last_s: p.events.at(-1)!.offsetS,
      live: p.finishedS === null,
      never_claimed: p.events.length === 1,
      leased: p.open !== null,
      run_claimed_s: p.open?.claimedS ?? null,
      run_started_s: p.open?.startedS ?? null,
      run_version: p.open?.version ?? null,
    })),
    `pattern int, state job_state, attempt int, submit_max int, max_attempts int, version int, last_s float8, live boolean,
           never_claimed boolean, leased boolean, run_claimed_s float8, run_started_s float8, run_version int`,
  );
  await recordHistories(db, "gen", pats);
  const rebuilt = await dropSecondaryIndexes(db, opts.count, opts.log);
  const worker = (attempt: string) => `'gen-w' || to_char(c.created_at AT TIME ZONE 'UTC', 'MMDD') || '-' || ((c.i + ${attempt}) % 8)`;
  await inChunks(db, opts.count, chunk, opts.log, async (tx, from, n) => {
    await execute(
      tx,
      sql`CREATE TEMP TABLE gen_chunk ON COMMIT DROP AS
      SELECT g AS i, s.pattern, p.live, z.scale, z.created_at, ${sql.raw(uuidv7Expr("z.created_at"))} AS id,
             (${sql.param(GEN_TENANTS)}::text[])[1 + (g * 7919) % ${GEN_TENANTS.length}::int] AS tenant_id,
             -- Every run of as many jobs as tenants has each tenant once, and one type: each tenant has every type.
             ((g / ${GEN_TENANTS.length}) % ${types.length})::int AS type_i
        FROM generate_series(${from}::bigint, ${from + n - 1}::bigint) g
        -- The history by run of as many jobs as tenants (as the type): each tenant has every history.
        JOIN gen_slot s ON s.slot = ((g / ${GEN_TENANTS.length}) * 7) % ${slots.length}::int
        JOIN gen_pattern p ON p.pattern = s.pattern
        CROSS JOIN LATERAL (SELECT 1 + (g * 104729 % 60)::int AS scale) f
        CROSS JOIN LATERAL (SELECT f.scale, now() - interval '2 minutes' - ${span}::float8 * interval '1 second' * (1 - g::float8 / ${opts.count}::int)
                                            - f.scale * p.last_s * interval '1 second' AS created_at) z`,
    );
    await execute(
      tx,
      sql`
      INSERT INTO job_catalog (id, tenant_id, type, queue, priority, max_attempts, params, idempotency_key, submitted_by_kind, submitted_by, created_at, not_before)
      SELECT c.id, c.tenant_id, t.type, CASE WHEN c.live THEN 'gen-' || t.queue ELSE t.queue END, (c.i % 3)::smallint, p.submit_max, t.params${sql.raw(opts.extraParams ? ` || ${opts.extraParams}` : "")},
             CASE WHEN c.i % 10 = 0 THEN 'gen-' || ${run}::int || '-' || c.i END, 'api', 'gen-api', c.created_at,
             CASE WHEN p.never_claimed THEN ${far}::timestamptz ELSE c.created_at END
        FROM gen_chunk c JOIN gen_pattern p USING (pattern)
        JOIN jsonb_to_recordset(${sql.param(types as never)}) AS t(i int, type text, queue text, params jsonb) ON t.i = c.type_i
       ORDER BY c.id`,
    );
    await execute(
      tx,
      sql`
      INSERT INTO jobs_live (id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version, lease_owner, heartbeat_at, not_before,
                             run_worker, run_claimed_at, run_started_at, run_version, params, created_at, updated_at)
      SELECT k.id, k.tenant_id, k.type, k.queue, k.priority, p.state, p.attempt, p.max_attempts, p.version,
             CASE WHEN p.leased THEN ${sql.raw(worker("p.attempt"))} END, CASE WHEN p.leased THEN ${sql.raw(at("p.last_s"))} END, ${far}::timestamptz,
             CASE WHEN p.leased THEN ${sql.raw(worker("p.attempt"))} END, ${sql.raw(at("p.run_claimed_s"))}, ${sql.raw(at("p.run_started_s"))}, p.run_version,
             k.params, k.created_at, ${sql.raw(at("p.last_s"))}
        FROM gen_chunk c JOIN gen_pattern p USING (pattern) JOIN job_catalog k ON k.id = c.id
       WHERE c.live`,
    );
    await stampHistories(tx, "gen", {
      worker: worker("a.attempt"),
      retryAt: sql`CASE WHEN a.retry_far THEN ${far}::timestamptz ELSE ${sql.raw(at("a.retry_s"))} END`,
    });
  });
  await dropWorkTables(db, "gen");
  await rebuilt();
  await vacuumAnalyze(db);
}

const TABLES = ["job_catalog", "jobs_live", "job_attempts", "job_log"];

/**
 * For a load that dwarfs what the tables hold, drop their secondary indexes and return the
 * function that builds them again afterwards (a sorted build instead of an insert per row into
 * each of sixteen btrees: 10 M jobs take about half the time). The definitions come from the
 * catalog, so the rebuilt indexes are the migrations' own; a generation that dies half-way
 * leaves the database without them (a benchmark database, made again on the next run).
 */
async function dropSecondaryIndexes(db: Db, count: number, log?: (s: string) => void): Promise<() => Promise<void>> {
  const [{ n }] = (await execute(db, sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM job_catalog LIMIT ${count}) x`)) as unknown as [{ n: number }];
  if (count < 1_000_000 || n * 4 > count) return async () => {};
  const defs = await execute<{ name: string; def: string }>(
    db,
    sql`
    SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
     WHERE i.schemaname = 'public' AND i.tablename = ANY(${sql.param(TABLES)})
       AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`,
  );
  for (const d of defs) await execute(db, sql`DROP INDEX ${sql.identifier(d.name)}`);
  log?.(`dropped ${defs.length} secondary indexes for the load`);
  return async () => {
    const t = performance.now();
    await db.transaction(async (tx) => {
      await execute(tx, sql`SET LOCAL maintenance_work_mem = '1GB'`);
      // A partitioned table's index is defined ON ONLY the parent; built on the parent, it is built on every partition.
      for (const d of defs) await execute(tx, sql.raw(d.def.replace(" ON ONLY ", " ON ")));
    });
    log?.(`rebuilt ${defs.length} indexes in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  };
}

/** Check a random sample of generated jobs with lib/integrity's checker (each rebuilt from its transitions and compared with its rows and attempts); returns the problems. */
export async function checkSample(db: Db, n = 200): Promise<string[]> {
  const ids = await execute<{ id: string }>(db, sql`SELECT id FROM job_catalog TABLESAMPLE SYSTEM (1) LIMIT ${n}`);
  const { mismatches, jobs } = await checkJobs(
    db,
    ids.map((r) => r.id),
  );
  const problems = mismatches.map((m) => `${m.jobId}: ${m.problem}`);
  if (jobs !== ids.length) problems.push(`${ids.length - jobs} sampled jobs are missing from the jobs view`);
  return problems;
}

/** Insert `n` queued report jobs with their submit events, as `enqueue` would (in bulk, through the write path's mark). */
export async function prefillJobscope(url: string, n: number, queue = "bench", opts: { vacuum?: boolean } = {}) {
  const db = connect(url, { max: 1 });
  try {
    for (let done = 0; done < n; done += 20_000) {
      await insertQueuedJobs(db, { n: Math.min(20_000, n - done), queue });
    }
    if (opts.vacuum !== false) await execute(db, sql`VACUUM ANALYZE jobs_live, job_catalog`);
  } finally {
    await closeDb(db);
  }
}

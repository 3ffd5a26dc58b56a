import type { Db } from "../db/client";
import type { LoggedEvent } from "../fsm/rebuild";
import type { JobState } from "../fsm/table";
import { checkJobs } from "../integrity/check";
import { claim } from "./claim";
import { enqueue, type EnqueueInput, type EnqueueOptions } from "./enqueue";
import { transition } from "./transition";
import type { Actor, JobRow, TransitionInput } from "./types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

export const api: Actor = { kind: "api", id: "test-api" };
export const operator: Actor = { kind: "operator", id: "op-1" };
export const supervisor: Actor = { kind: "supervisor", id: "sup-1" };
export const worker = (id = "w-1"): Actor => ({ kind: "worker", id });

/** What worker `w`'s move of a job it claimed and started names: the job, its attempt, and the running version it holds. */
export const heldBy = (job: Pick<JobRow, "id" | "attempt" | "stateVersion">, w = "w-1") => ({
  jobId: job.id,
  actor: worker(w),
  attempt: job.attempt,
  expected: { state: "running" as const, version: job.stateVersion },
});

export async function seedTenants(db: Db, ids = ["acme", "globex"]) {
  for (const id of ids) await execute(db, sql`INSERT INTO tenants (id, name) VALUES (${id}, ${id.toUpperCase()}) ON CONFLICT DO NOTHING`);
}

let n = 0;
/**
 * A queued report job of acme's, submitted by the API. Unless `input` names one, it is on a queue of
 * its own, so tests do not claim each other's jobs; `input` may set any other field of the submit too.
 */
export async function newJob(db: Db, input: Partial<EnqueueInput> = {}, opts: EnqueueOptions = {}) {
  const { job } = await enqueue(
    db,
    {
      type: "report.generate",
      params: { report: "daily_usage", period: "2026-11" },
      ...input,
      tenantId: input.tenantId ?? "acme",
      queue: input.queue ?? `q${++n}-${Math.random().toString(36).slice(2, 8)}`,
      maxAttempts: input.maxAttempts ?? 3,
    },
    api,
    opts,
  );
  return job;
}

/** Claim and start `job` as worker `w`; returns the running row. */
export async function runJob(db: Db, job: JobRow, w = "w-1"): Promise<JobRow> {
  const [claimed] = await claim(db, { workerId: w, queues: [job.queue], limit: 1, onlyJobIds: [job.id] });
  if (!claimed) throw new Error(`could not claim ${job.id}`);
  const started = await transition(db, { jobId: job.id, event: "start", actor: worker(w), attempt: claimed.attempt });
  if (!started.ok) throw new Error(started.reason);
  return started.job;
}

/** Run `job` (claim and start, as worker w-1), then end that attempt with the worker's `event`; returns the row after it. */
export async function runAndEnd(
  db: Db,
  job: JobRow,
  event: "finish" | "fail" | "abandon",
  details: Pick<TransitionInput, "error" | "retryAt" | "result"> = {},
): Promise<JobRow> {
  const running = await runJob(db, job);
  const r = await transition(db, { jobId: job.id, event, actor: worker(), attempt: running.attempt, ...details });
  if (!r.ok) throw new Error(r.reason);
  return r.job;
}

export async function getJob(db: Db, id: string): Promise<JobRow> {
  const [row] = await execute<JobRow>(db, sql`SELECT * FROM jobs WHERE id = ${id}`);
  if (!row) throw new Error(`no job ${id}`);
  return row;
}

export async function eventsOf(db: Db, id: string) {
  return execute<LoggedEvent & { actorId: string; payload: unknown }>(
    db,
    sql`
    SELECT event, from_state, to_state, actor_kind, actor_id, attempt, state_version, payload FROM job_events
     WHERE job_id = ${id} ORDER BY state_version`,
  );
}

export async function rejectionsOf(db: Db, id: string) {
  return execute<{ kind: string; event: string; actorKind: string; actorId: string; currentState: JobState | null; reason: string }>(
    db,
    sql`
    SELECT kind, event, actor_kind, actor_id, current_state, reason FROM transition_rejections WHERE job_id = ${id} ORDER BY id`,
  );
}

/** The integrity check of one job (lib/integrity/check.ts): its row and run records are what its events rebuild. */
export async function checkJobIntegrity(db: Db, id: string): Promise<string[]> {
  const { mismatches } = await checkJobs(db, [id]);
  return mismatches.map((m) => `${id}: ${m.problem}`);
}

/**
 * Runs `write` and counts the heap LOCK records the server wrote meanwhile on `table` or on its
 * partitions (pg_partition_tree lists none for a plain table): a row lock of its own taken before
 * a write, as PostgreSQL takes for a BEFORE row trigger on an UPDATE or DELETE (drizzle/0030).
 * Server-wide WAL, filtered to this database's relations. `db` is the owner's pool (pg_walinspect).
 */
export async function rowLocksDuring<T>(db: Db, table: string, write: () => Promise<T>): Promise<{ locks: number; result: T }> {
  await execute(db, sql`CREATE EXTENSION IF NOT EXISTS pg_walinspect`);
  const lsn = async () => (await execute<{ l: string }>(db, sql`SELECT pg_current_wal_flush_lsn()::text AS l`))[0]!.l;
  const from = await lsn();
  const result = await write();
  const rows = await execute<{ n: number }>(
    db,
    sql`WITH rels AS (
          SELECT '%/' || (SELECT oid FROM pg_database WHERE datname = current_database()) || '/' || pg_relation_filenode(relid) || ' %' AS ref
            FROM (SELECT ${table}::regclass AS relid UNION SELECT relid FROM pg_partition_tree(${table}::regclass) WHERE isleaf) r)
        SELECT count(*)::int AS n FROM pg_get_wal_records_info(${from}::pg_lsn, ${await lsn()}::pg_lsn) w
         WHERE w.resource_manager = 'Heap' AND w.record_type LIKE 'LOCK%' AND EXISTS (SELECT FROM rels WHERE w.block_ref LIKE rels.ref)`,
  );
  return { locks: rows[0]!.n, result };
}

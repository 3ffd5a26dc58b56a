import type { Db } from "../db/client";
import { withScope } from "../db/scope";
import { canApply, eventsOf, type JobSnapshot } from "../fsm/machine";
import { STATES, TRANSITIONS, type EventOf, type JobState } from "../fsm/table";
import type { JobFilters } from "./filters";
import { listJobs } from "./queries";
import { jobSnapshots } from "./read-model";
import { transition } from "./transition";
import type { Actor, Rejection } from "./types";
import { isUuid } from "../uuid";
import { z } from "zod";
import { AUDIT_ACTIONS } from "../audit/actions";
import { recordAudit, type AuditEntry } from "../audit/audit";
import { ROLES } from "../auth/permissions";
import { enqueue } from "./enqueue";
import { BUILTIN_TENANT } from "./job-types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/** An event an operator may apply to an existing job, read from the transition table. */
export type BulkEvent = EventOf<"operator">;

/** Every `BulkEvent`, in the table's order. */
export const BULK_EVENTS: readonly BulkEvent[] = eventsOf("operator");

/** Jobs picked one by one, or everything matching the jobs list's filters (cursor ignored). */
export type BulkSelection = { ids: string[] } | { filter: JobFilters };

/**
 * A job as the dry run saw it: the transition is applied only if it is still exactly this. `params`:
 * a replay's edited params (already checked against the job's type), carried on its transition.
 */
export type FrozenJob = { id: string; state: JobState; version: number; params?: unknown };

/** A frozen job on the wire, compact because a selection may hold 10,000 of them: [id, state, version]. */
export const FrozenTuple = z.tuple([z.uuid(), z.enum(STATES), z.int().min(0)]);
export type FrozenTuple = z.infer<typeof FrozenTuple>;

export const toTuple = (j: FrozenJob): FrozenTuple => [j.id, j.state, j.version];
export const fromTuple = ([id, state, version]: FrozenTuple): FrozenJob => ({ id, state, version });

export type BulkPreview = {
  /** Jobs the selection resolved to (ids that name no job included). */
  total: number;
  willApply: number;
  /** Why the others will be left alone, most common first. */
  willSkip: { reason: string; count: number }[];
  /** The jobs that will be moved, as they are now: what `startBulk` takes. */
  frozen: FrozenJob[];
  /** The filter matched more than BULK_CAP jobs; only the newest BULK_CAP were taken. */
  capped: boolean;
};

/** At most this many jobs in one bulk action (the newest first); more is a job for a script, not a click. */
export const BULK_CAP = 10_000;
const PAGE = 1_000;

type Resolved = { jobs: (JobSnapshot & { id: string })[]; missing: number; capped: boolean };

/** The jobs a selection names now (BULK_CAP at most, newest first for a filter): what a dry run checks. */
export function resolveSelection(db: Db, selection: BulkSelection): Promise<Resolved> {
  return "ids" in selection ? resolveIds(db, selection.ids) : resolveFilter(db, selection.filter);
}

async function resolveIds(db: Db, ids: string[]): Promise<Resolved> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  const valid = unique.filter((id) => isUuid(id)).slice(0, BULK_CAP);
  const jobs = await jobSnapshots(db, valid);
  return { jobs, missing: Math.min(unique.length, BULK_CAP) - jobs.length, capped: unique.length > BULK_CAP };
}

/** Pages a filter's selection reads at most: each reads at most SCAN_BUDGET jobs (lib/jobs/list-source.ts). */
const MAX_PAGES = 200;

/**
 * A filter resolves through `listJobs` itself, in the list's order, page by page
 * with its keyset cursor, so "everything matching this filter" is exactly what
 * the list shows under that filter. A rare combination of filters gives short
 * pages; after MAX_PAGES the selection is what was found so far (capped).
 */
async function resolveFilter(db: Db, filter: JobFilters): Promise<Resolved> {
  const jobs: Resolved["jobs"] = [];
  let f: JobFilters = { ...filter, before: undefined, after: undefined, limit: PAGE };
  for (let n = 1; ; n++) {
    const page = await listJobs(db, { ...f, limit: Math.min(PAGE, BULK_CAP + 1 - jobs.length) });
    jobs.push(...page.jobs);
    if (jobs.length > BULK_CAP) return { jobs: jobs.slice(0, BULK_CAP), missing: 0, capped: true };
    if (!page.next) return { jobs, missing: 0, capped: false };
    if (n === MAX_PAGES) return { jobs, missing: 0, capped: true };
    f = { ...f, after: page.next };
  }
}

/** Where `event` leads, from any state: "already cancelled" reads better than "not allowed". */
const targetsOf = (event: BulkEvent) => new Set<JobState>(TRANSITIONS.filter((t) => t.event === event).map((t) => t.to));

/** Resolve the selection now and say, with the state machine, what `event` would do to each job. */
export async function previewBulk(
  db: Db,
  { selection, event, actor }: { selection: BulkSelection; event: BulkEvent; actor: Actor },
): Promise<BulkPreview> {
  const { jobs, missing, capped } = await resolveSelection(db, selection);
  const targets = targetsOf(event);
  const frozen: FrozenJob[] = [];
  const skip = new Map<string, number>();
  if (missing > 0) skip.set("no such job", missing);
  for (const job of jobs) {
    if (canApply(job, event, actor.kind)) {
      frozen.push({ id: job.id, state: job.state, version: job.stateVersion });
      continue;
    }
    const reason = targets.has(job.state) ? `already ${job.state}` : `${event} is not allowed from ${job.state}`;
    skip.set(reason, (skip.get(reason) ?? 0) + 1);
  }
  const willSkip = [...skip].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count);
  return { total: jobs.length + missing, willApply: frozen.length, willSkip, frozen, capped };
}

/** An item's outcome: applied, a refusal's kind, or "error" when the write path threw. */
export type BulkOutcome = "applied" | Rejection["kind"] | "error";

const CHUNK = 50;
/** Transitions in flight at once: leaves most of the worker's pool to its other jobs. */
const LANES = 4;

/**
 * The operation's audit entry: who confirmed it and what, as data (also stored with the operation,
 * for the worker that runs it). `lib/audit/bulk.ts` makes it from the signed-in viewer.
 */
export const BulkAudit = z.strictObject({
  userId: z.string().max(200).nullable(),
  actor: z.string().max(200),
  role: z.enum(ROLES).nullable(),
  tenantId: z.string().max(100).nullable(),
  action: z.enum(AUDIT_ACTIONS),
  description: z.string().max(500),
});
export type BulkAudit = z.infer<typeof BulkAudit>;

/**
 * Record a confirmed bulk action with its frozen selection and submit the built-in
 * `jobscope.bulk` job that applies it, all in one transaction: once this returns, the
 * operation survives any restart of this process, and a worker runs it (resuming where a
 * killed one stopped). Jobs that arrive later are never swept in, and each job is moved only
 * from the state and version the dry run saw, so one that moved since is refused as a
 * conflict, never overwritten. With `audit`, the same transaction writes the operation's one
 * audit entry: every job it froze, and the operation, whose items and their
 * outcomes are reached from it (/jobs?operation=<id>, bulk_operation_items).
 */
export async function startBulk(
  db: Db,
  { frozen, event, actor, description, audit }: { frozen: FrozenJob[]; event: BulkEvent; actor: Actor; description: string; audit?: BulkAudit },
): Promise<{ operationId: string; jobId: string | null }> {
  const itemAudit = audit ? BulkAudit.parse(audit) : null;
  // The bulk job is the built-in tenant's: a staff scope to submit it (row-level security).
  return withScope(db, { all: true }, async (tx) => {
    const [op] = await execute<{ id: string }>(
      tx,
      sql`
      INSERT INTO bulk_operations (event, actor_kind, actor_id, description, total, item_audit, status, finished_at)
      VALUES (${event}, ${actor.kind}, ${actor.id}, ${description.slice(0, 500)}, ${frozen.length},
              ${itemAudit ? sql.param(itemAudit) : null}, ${frozen.length ? "running" : "done"}, ${frozen.length ? null : new Date()})
      RETURNING id`,
    );
    if (!op) throw new Error("bulk_operations insert returned no row");
    if (!frozen.length) return { operationId: op.id, jobId: null };
    await execute(
      tx,
      sql`
      INSERT INTO bulk_operation_items (operation_id, job_id, expected_state, expected_version, params)
      SELECT ${op.id}, i.id, i.state, i.version, i.params::jsonb
        FROM unnest(${sql.param(frozen.map((j) => j.id))}::uuid[], ${sql.param(frozen.map((j) => j.state))}::job_state[],
                    ${sql.param(frozen.map((j) => j.version))}::int[],
                    ${sql.param(frozen.map((j) => (j.params === undefined ? null : JSON.stringify(j.params))))}::text[]) AS i(id, state, version, params)
      ON CONFLICT DO NOTHING`,
    );
    await ensureBuiltinTenant(tx);
    const { job } = await enqueue(
      tx,
      { tenantId: BUILTIN_TENANT, type: "jobscope.bulk", params: { operationId: op.id }, priority: 9, idempotencyKey: `bulk:${op.id}` },
      actor.kind === "operator" ? actor : { kind: "operator", id: actor.id },
    );
    await execute(tx, sql`UPDATE bulk_operations SET job_id = ${job.id} WHERE id = ${op.id}`);
    if (itemAudit) await recordAudit(tx, operationAuditEntry(itemAudit, op.id, frozen));
    return { operationId: op.id, jobId: job.id };
  });
}

/**
 * The tenant of Jobscope's own jobs: made by `npm start` after its demo seed, else by the first bulk
 * action (not by migration 0021: `npm start` seeds the demo only into a database without tenants).
 */
export async function ensureBuiltinTenant(db: Db): Promise<void> {
  await execute(db, sql`INSERT INTO tenants (id, name) VALUES (${BUILTIN_TENANT}, 'Jobscope (built-in jobs)') ON CONFLICT (id) DO NOTHING`);
}

type Item = { jobId: string; expectedState: JobState; expectedVersion: number; params: unknown };
type Operation = { event: BulkEvent; actorKind: Actor["kind"]; actorId: string; status: BulkProgress["status"]; itemAudit: unknown };

/** An error that a later attempt may not meet: the database went away, or a lock or serialisation conflict. */
export function isTransientDbError(e: unknown): boolean {
  const code = typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : "";
  return /^(CONNECTION_|CONNECT_TIMEOUT|ECONN|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND)/.test(code) || /^(08|53|57P0[1-3]|40001|40P01)/.test(code);
}

/**
 * Apply an operation's unsettled items (the `jobscope.bulk` handler; lib/worker/builtin-handlers.ts).
 * Each item is settled once in its own transaction: the item row locked while still unsettled,
 * its guarded transition and its outcome commit together, so a run killed at any
 * point leaves every item either settled with its transition, or untouched; the next run (the
 * next attempt, or another worker after the lease expired) takes up the rest. Two runs at once
 * (a lost lease still running) never settle the same item twice: the second waits for the row
 * lock and then finds it settled. A database error a retry may not meet is thrown (the job
 * fails and its retry resumes); any other error settles the item as "error".
 */
export async function runBulkOperation(
  db: Db,
  operationId: string,
  opts: { checkpoint?: () => Promise<void>; signal?: AbortSignal } = {},
): Promise<{ settled: number; status: BulkProgress["status"] | "missing" }> {
  const [op] = await execute<Operation>(
    db,
    sql`
    SELECT event, actor_kind, actor_id, status, item_audit FROM bulk_operations WHERE id = ${operationId}`,
  );
  if (!op) return { settled: 0, status: "missing" };
  if (op.status !== "running") return { settled: 0, status: op.status };
  const actor: Actor = { kind: op.actorKind, id: op.actorId };
  let settled = 0;
  let after = "00000000-0000-0000-0000-000000000000";
  for (;;) {
    await opts.checkpoint?.();
    if (opts.signal?.aborted) throw opts.signal.reason;
    const items = await execute<Item>(
      db,
      sql`
      SELECT job_id, expected_state, expected_version, params FROM bulk_operation_items
       WHERE operation_id = ${operationId} AND outcome IS NULL AND job_id > ${after} ORDER BY job_id LIMIT ${CHUNK}`,
    );
    if (!items.length) break;
    after = items[items.length - 1]!.jobId;
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < items.length; i = next++) {
        if (opts.signal?.aborted) return;
        if (await settleOne(db, operationId, items[i]!, op.event, actor)) settled++;
      }
    };
    await Promise.all(Array.from({ length: LANES }, lane));
  }
  if (opts.signal?.aborted) throw opts.signal.reason;
  const [done] = await execute<{ status: BulkProgress["status"] }>(
    db,
    sql`
    UPDATE bulk_operations SET status = 'done', finished_at = now()
     WHERE id = ${operationId} AND status = 'running'
       AND NOT EXISTS (SELECT 1 FROM bulk_operation_items WHERE operation_id = ${operationId} AND outcome IS NULL)
    RETURNING status`,
  );
  return { settled, status: done?.status ?? "running" };
}

/** Settle one item, unless another run already has; true when this run settled it. */
async function settleOne(db: Db, operationId: string, item: Item, event: BulkEvent, actor: Actor): Promise<boolean> {
  try {
    // Bulk actions are an operator's: every tenant's rows are in scope (row-level security).
    return await withScope(db, { all: true }, async (tx) => {
      const [mine] = await execute(
        tx,
        sql`
        SELECT 1 FROM bulk_operation_items WHERE operation_id = ${operationId} AND job_id = ${item.jobId} AND outcome IS NULL FOR UPDATE`,
      );
      if (!mine) return false;
      // A replay with edited params carries them on its transition: the job_log row keeps them, and the live row runs with them.
      const payload = item.params === null || item.params === undefined ? undefined : { params: item.params };
      const r = await transition(tx, {
        jobId: item.jobId,
        event,
        actor,
        expected: { state: item.expectedState, version: item.expectedVersion },
        payload,
      });
      const result = r.ok ? { outcome: "applied" as const, reason: null } : { outcome: r.kind, reason: r.reason.slice(0, 2000) };
      await execute(
        tx,
        sql`UPDATE bulk_operation_items SET outcome = ${result.outcome}, reason = ${result.reason}
                WHERE operation_id = ${operationId} AND job_id = ${item.jobId}`,
      );
      return true;
    });
  } catch (err) {
    if (isTransientDbError(err)) throw err;
    // One job's failure must not stop the others; the cause stays in the worker's log.
    console.error(`[jobscope] bulk ${event} on job ${item.jobId} failed:`, err);
    const rows = await execute(
      db,
      sql`
      UPDATE bulk_operation_items SET outcome = 'error', reason = 'the write failed; details are in the worker log'
       WHERE operation_id = ${operationId} AND job_id = ${item.jobId} AND outcome IS NULL RETURNING 1`,
    );
    return rows.length > 0;
  }
}

/** The one audit entry of a confirmed operation: what and by whom, every job it froze, and the operation. */
function operationAuditEntry(a: BulkAudit, operationId: string, frozen: FrozenJob[]): AuditEntry {
  const jobs = `${frozen.length} ${frozen.length === 1 ? "job" : "jobs"}`;
  return {
    userId: a.userId,
    actor: a.actor,
    role: a.role,
    tenantId: a.tenantId,
    via: "console",
    action: a.action,
    jobIds: frozen.map((j) => j.id),
    outcome: "applied",
    reason: `${a.description}: ${jobs} confirmed; each is moved only from the state and version its dry run saw (operation ${operationId})`,
    operationId,
  };
}

export type BulkProgress = {
  id: string;
  event: BulkEvent;
  description: string;
  status: "running" | "done" | "failed";
  total: number;
  /** Items processed so far: applied + every refusal. */
  done: number;
  applied: number;
  /** Refusals by kind, most common first, each with one example of its reason. */
  refused: { kind: Exclude<BulkOutcome, "applied">; count: number; sampleReason: string }[];
  createdAt: Date;
  finishedAt: Date | null;
};

/** How far a bulk action has got, or null when there is no such operation. */
export async function getBulkProgress(db: Db, operationId: string): Promise<BulkProgress | null> {
  if (!isUuid(operationId)) return null;
  const [op] = await execute<Omit<BulkProgress, "done" | "applied" | "refused">>(
    db,
    sql`
    SELECT id, event, description, status, total, created_at, finished_at FROM bulk_operations WHERE id = ${operationId}`,
  );
  if (!op) return null;
  const rows = await execute<{ outcome: BulkOutcome; count: number; sampleReason: string | null }>(
    db,
    sql`
    SELECT outcome, count(*)::int AS count, min(reason) AS sample_reason FROM bulk_operation_items
     WHERE operation_id = ${operationId} AND outcome IS NOT NULL GROUP BY outcome`,
  );
  const refused = rows
    .filter((r): r is typeof r & { outcome: Exclude<BulkOutcome, "applied"> } => r.outcome !== "applied")
    .map((r) => ({ kind: r.outcome, count: r.count, sampleReason: r.sampleReason ?? "" }))
    .sort((a, b) => b.count - a.count);
  return {
    ...op,
    done: rows.reduce((n, r) => n + r.count, 0),
    applied: rows.find((r) => r.outcome === "applied")?.count ?? 0,
    refused,
  };
}

import type { Db, Sql } from "../db/client";
import { withScope } from "../db/scope";
import { canApply, type JobSnapshot } from "../fsm/machine";
import { TRANSITIONS, type JobState } from "../fsm/table";
import type { JobFilters } from "./filters";
import { listJobs } from "./queries";
import { jobSnapshots } from "./read-model";
import { transition } from "./transition";
import type { Actor, Rejection } from "./types";
import type { Tx } from "./write-path";
import { isUuid } from "../uuid";

type OperatorEvent<T> = T extends { from: JobState; event: infer E; actors: readonly (infer A)[] }
  ? "operator" extends A
    ? E
    : never
  : never;

/** An event an operator may apply to an existing job, read from the transition table. */
export type BulkEvent = OperatorEvent<(typeof TRANSITIONS)[number]>;

const isOperatorTransition = (t: (typeof TRANSITIONS)[number]): t is Extract<(typeof TRANSITIONS)[number], { event: BulkEvent }> =>
  t.from !== null && (t.actors as readonly string[]).includes("operator");

/** Every `BulkEvent`, in the table's order. */
export const BULK_EVENTS: readonly BulkEvent[] = [...new Set(TRANSITIONS.filter(isOperatorTransition).map((t) => t.event))];

/** Jobs picked one by one, or everything matching the jobs list's filters (cursor ignored). */
export type BulkSelection = { ids: string[] } | { filter: JobFilters };

/** A job as the dry run saw it: the transition is applied only if it is still exactly this. */
export type FrozenJob = { id: string; state: JobState; version: number };

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

async function resolveIds(sql: Db, ids: string[]): Promise<Resolved> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  const valid = unique.filter((id) => isUuid(id)).slice(0, BULK_CAP);
  const jobs = await jobSnapshots(sql, valid);
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
async function resolveFilter(sql: Db, filter: JobFilters): Promise<Resolved> {
  const jobs: Resolved["jobs"] = [];
  let f: JobFilters = { ...filter, before: undefined, after: undefined, limit: PAGE };
  for (let n = 1; ; n++) {
    const page = await listJobs(sql, { ...f, limit: Math.min(PAGE, BULK_CAP + 1 - jobs.length) });
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
  sql: Db,
  { selection, event, actor }: { selection: BulkSelection; event: BulkEvent; actor: Actor },
): Promise<BulkPreview> {
  const { jobs, missing, capped } = "ids" in selection ? await resolveIds(sql, selection.ids) : await resolveFilter(sql, selection.filter);
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
/** Transitions in flight at once: leaves most of the pool to the pages being polled meanwhile. */
const LANES = 4;

/**
 * Record a confirmed bulk action with its frozen selection, then apply it in the
 * background of this process (not awaited): jobs that arrive later are never
 * swept in, and each job is moved only from the state and version the dry run
 * saw, so one that moved since is refused as a conflict, never overwritten.
 */
export async function startBulk(
  sql: Sql,
  {
    frozen,
    event,
    actor,
    description,
    onItem,
  }: { frozen: FrozenJob[]; event: BulkEvent; actor: Actor; description: string; onItem?: OnItem },
): Promise<{ operationId: string }> {
  const operationId = await sql.begin(async (tx) => {
    const [op] = await tx<{ id: string }[]>`
      INSERT INTO bulk_operations (event, actor_kind, actor_id, description, total)
      VALUES (${event}, ${actor.kind}, ${actor.id}, ${description.slice(0, 500)}, ${frozen.length})
      RETURNING id`;
    if (!op) throw new Error("bulk_operations insert returned no row");
    if (frozen.length) {
      await tx`
        INSERT INTO bulk_operation_items (operation_id, job_id, expected_state, expected_version)
        SELECT ${op.id}, i.id, i.state, i.version
          FROM unnest(${frozen.map((j) => j.id)}::uuid[], ${frozen.map((j) => j.state)}::job_state[],
                      ${frozen.map((j) => j.version)}::int[]) AS i(id, state, version)
        ON CONFLICT DO NOTHING`;
    }
    return op.id;
  });
  void runBulk(sql, operationId, event, actor, onItem).catch(async (err: unknown) => {
    console.error(`[jobscope] bulk operation ${operationId} failed:`, err);
    await sql`UPDATE bulk_operations SET status = 'failed', finished_at = now() WHERE id = ${operationId}`.catch(
      (e: unknown) => console.error(`[jobscope] could not mark bulk operation ${operationId} failed:`, e),
    );
  });
  return { operationId };
}

type Item = { jobId: string; expectedState: JobState; expectedVersion: number };

/** Called in each item's transaction after its transition (applied or refused): the console writes its audit row here. */
export type OnItem = (tx: Tx, jobId: string, outcome: { outcome: BulkOutcome; reason: string | null }) => Promise<void>;

async function runBulk(sql: Sql, operationId: string, event: BulkEvent, actor: Actor, onItem?: OnItem) {
  for (;;) {
    const items = await sql<Item[]>`
      SELECT job_id, expected_state, expected_version FROM bulk_operation_items
       WHERE operation_id = ${operationId} AND outcome IS NULL ORDER BY job_id LIMIT ${CHUNK}`;
    if (!items.length) break;
    const results: { outcome: BulkOutcome; reason: string | null }[] = new Array(items.length);
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < items.length; i = next++) results[i] = await applyOne(sql, items[i]!, event, actor, onItem);
    };
    await Promise.all(Array.from({ length: LANES }, lane));
    await sql`
      UPDATE bulk_operation_items b SET outcome = r.outcome, reason = r.reason
        FROM unnest(${items.map((i) => i.jobId)}::uuid[], ${results.map((r) => r.outcome)}::text[],
                    ${results.map((r) => r.reason)}::text[]) AS r(job_id, outcome, reason)
       WHERE b.operation_id = ${operationId} AND b.job_id = r.job_id`;
  }
  await sql`UPDATE bulk_operations SET status = 'done', finished_at = now() WHERE id = ${operationId}`;
}

async function applyOne(
  sql: Sql,
  item: Item,
  event: BulkEvent,
  actor: Actor,
  onItem?: OnItem,
): Promise<{ outcome: BulkOutcome; reason: string | null }> {
  try {
    // Bulk actions are an operator's: every tenant's rows are in scope (row-level security).
    return await withScope(sql, { all: true }, async (tx) => {
      const r = await transition(tx, {
        jobId: item.jobId,
        event,
        actor,
        expected: { state: item.expectedState, version: item.expectedVersion },
      });
      const result = r.ok ? { outcome: "applied" as const, reason: null } : { outcome: r.kind, reason: r.reason.slice(0, 2000) };
      await onItem?.(tx, item.jobId, result);
      return result;
    });
  } catch (err) {
    // One job's failure must not stop the others; the cause stays in the server log.
    console.error(`[jobscope] bulk ${event} on job ${item.jobId} failed:`, err);
    return { outcome: "error", reason: "the write failed; details are in the server log" };
  }
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
export async function getBulkProgress(sql: Db, operationId: string): Promise<BulkProgress | null> {
  if (!isUuid(operationId)) return null;
  const [op] = await sql<Omit<BulkProgress, "done" | "applied" | "refused">[]>`
    SELECT id, event, description, status, total, created_at, finished_at FROM bulk_operations WHERE id = ${operationId}`;
  if (!op) return null;
  const rows = await sql<{ outcome: BulkOutcome; count: number; sampleReason: string | null }[]>`
    SELECT outcome, count(*)::int AS count, min(reason) AS sample_reason FROM bulk_operation_items
     WHERE operation_id = ${operationId} AND outcome IS NOT NULL GROUP BY outcome`;
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

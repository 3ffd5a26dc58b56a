import { tenantScopeOf } from "../auth/permissions";
import { withViewerRead, type Viewer } from "../auth/viewer";
import type { Db, Tx } from "../db/client";
import { readPoolAfter } from "../db/read-your-writes";
import { withScope } from "../db/scope";
import { getJobDetail, type JobDetail } from "../jobs/queries";
import { isUuid } from "../uuid";
import { sizeParamOf } from "../jobs/job-types";
import { WORKER_LOST_CLASS } from "../jobs/poison";
import { redactForTenant } from "../jobs/redact";
import type { Audience, Baseline, Percentiles } from "./claims";
import {
  explain,
  intersect,
  mergeAll,
  queueWaits,
  subtract,
  type ExplainContext,
  type ExplainEvent,
  type ExplainJob,
  type ExplainRun,
  type Interval,
  type Wait,
} from "./explain";
import { render } from "./render";
import { SILENT_AFTER_MS } from "./windows";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * What "why was this slow" reads about the rest of the system for one job (lib/insight/explain.ts
 * turns it and the job's own record into claims). Every read is bounded and goes through an index;
 * each says which below.
 *
 * A tenant sees the tenant's world: its comparisons are with its own jobs; counts that span every
 * tenant (jobs ahead, later jobs started first, a queue at its limit) are read in a transaction that
 * sees every tenant (`all`), and only numbers and times leave it — never an id, a type or a tenant;
 * no other job is named (a crash blamed on another job is another customer's job) and no staff
 * member's name.
 */

/** The comparison's window: jobs of the type submitted in the 7 days before the job was. */
export const BASELINE_WINDOW_MS = 7 * 24 * 3_600_000;
/** How many of them (the newest that had succeeded before its submit). */
export const BASELINE_SAMPLE = 200;
/** How many of the type's newest submits are walked to find them. */
export const BASELINE_SCAN = 5_000;
/** "Jobs ahead at submit" and "later jobs started first" count among at most this many jobs of the queue. */
export const AHEAD_SCAN = 5_000;
/** A queue's occupancy is read from its jobs submitted up to this long before a wait (and every job it holds now). */
const OCCUPANCY_LOOKBACK_MS = 3_600_000;
/** A stretch without a serving worker shorter than this is not named: a worker's restart is not an outage. */
const NO_WORKER_FLOOR_MS = 5_000;

export type ExplainDetail = { job: ExplainJob & { priority: number; params: unknown }; runs: readonly ExplainRun[]; events: readonly ExplainEvent[] };

export async function explainContext(
  db: Db,
  detail: ExplainDetail,
  opts: { tenantOnly: boolean; asOf?: number; all?: <T>(fn: (all: Db) => Promise<T>) => Promise<T> },
): Promise<ExplainContext> {
  const { job, runs, events } = detail;
  const asOf = opts.asOf ?? Date.now();
  const all = opts.all ?? (<T>(fn: (db: Db) => Promise<T>) => fn(db));
  const waits = queueWaits(job, runs, events, asOf);
  const first = waits.find((w) => w.before === 1 && !w.requeue) ?? null;
  const sizeParam = sizeParamOf(job.type);
  const value = sizeParam ? numberAt(job.params, sizeParam) : null;
  const [mine, everyone, ahead, skipped, pauses, full, noWorker, crashes, crashedWorkers] = await Promise.all([
    baseline(db, job, job.tenantId, sizeParam),
    opts.tenantOnly ? null : baseline(db, job, null, sizeParam),
    first ? all((db) => jobsAhead(db, job)) : null,
    first ? all((db) => laterStartedFirst(db, job, asOf)) : null,
    queuePauses(db, job, asOf),
    waits.length ? all((db) => fullStretches(db, job, waits, asOf)) : [],
    waits.length ? all((db) => noWorkerStretches(db, job, waits, runs, asOf)) : null,
    lostAttempts(db, job),
    opts.tenantOnly ? crashedWorkersOf(db, job, false) : crashedWorkersOf(db, job, true),
  ]);
  return {
    asOf,
    baselines: [mine, ...(everyone ? [everyone] : [])],
    ahead: ahead && { ...ahead, own: opts.tenantOnly ? null : ahead.own },
    skipped: skipped && { ...skipped, otherTenants: opts.tenantOnly ? null : skipped.otherTenants },
    // A tenant sees that an operator paused the queue, never who.
    pauses: pauses.map((p) => ({
      from: p.from,
      to: p.to,
      by: p.by && (opts.tenantOnly && p.by.kind === "operator" ? { kind: "operator", id: "" } : p.by),
    })),
    full,
    noWorker,
    crashes: Object.fromEntries(
      Object.entries(crashes).map(([a, c]) => [a, opts.tenantOnly ? { ...c, blamedOn: null } : c]),
    ) as ExplainContext["crashes"],
    crashedWorkers,
    input: sizeParam && value !== null ? { param: sizeParam, value } : null,
  };
}

type Subject = Pick<ExplainDetail["job"], "id" | "type" | "queue" | "tenantId" | "priority" | "createdAt" | "notBefore">;

/**
 * The job's type (and tenant) as it was before its submit: the newest BASELINE_SAMPLE of its
 * BASELINE_SCAN newest jobs submitted in the BASELINE_WINDOW_MS before it that had succeeded
 * before it was submitted. It depends only on what happened before the submit, so a reader of a
 * finished job always reads the same comparison. job_catalog_type_created_idx (or
 * job_catalog_tenant_type_created_idx), walked newest first from the submit; job_attempts_pkey per
 * job. Percentiles are nearest-rank (percentile_disc).
 */
async function baseline(db: Db, job: Subject, tenantId: string | null, sizeParam: string | null): Promise<Baseline> {
  const to = job.createdAt;
  const from = new Date(to.getTime() - BASELINE_WINDOW_MS);
  const [row] = await execute<{
    n: number;
    total50: number | null;
    total95: number | null;
    run50: number | null;
    run95: number | null;
    wait50: number | null;
    wait95: number | null;
    input50: number | null;
    input95: number | null;
  }>(
    db,
    sql`
    WITH walked AS (
      SELECT id, created_at, greatest(created_at, not_before) AS due, ${sizeParam ? sql`(params->>${sizeParam})` : sql`NULL`} AS input
        FROM job_catalog
       WHERE type = ${job.type} ${tenantId ? sql`AND tenant_id = ${tenantId}` : sql``}
         AND created_at >= ${from} AND created_at < ${to} AND id <> ${job.id}
       ORDER BY created_at DESC NULLS LAST LIMIT ${BASELINE_SCAN}),
    sample AS (
      SELECT w.*, ok.started_at, ok.finished_at,
             (SELECT f.claimed_at FROM job_attempts f WHERE f.job_id = w.id AND f.attempt = 1) AS first_claim
        FROM walked w
        JOIN LATERAL (SELECT a.started_at, a.finished_at FROM job_attempts a
                       WHERE a.job_id = w.id AND a.end_to = 'succeeded' AND a.finished_at < ${to} LIMIT 1) ok ON true
       ORDER BY w.created_at DESC NULLS LAST LIMIT ${BASELINE_SAMPLE}),
    m AS (
      SELECT extract(epoch FROM finished_at - created_at) * 1000 AS total,
             extract(epoch FROM finished_at - started_at) * 1000 AS run,
             extract(epoch FROM greatest(first_claim - due, interval '0')) * 1000 AS wait,
             CASE WHEN input ~ '^[0-9]+(\\.[0-9]+)?$' THEN input::numeric END AS input
        FROM sample)
    SELECT count(*)::int AS n,
           percentile_disc(0.5) WITHIN GROUP (ORDER BY total)::float8 AS total50, percentile_disc(0.95) WITHIN GROUP (ORDER BY total)::float8 AS total95,
           percentile_disc(0.5) WITHIN GROUP (ORDER BY run)::float8 AS run50, percentile_disc(0.95) WITHIN GROUP (ORDER BY run)::float8 AS run95,
           percentile_disc(0.5) WITHIN GROUP (ORDER BY wait)::float8 AS wait50, percentile_disc(0.95) WITHIN GROUP (ORDER BY wait)::float8 AS wait95,
           percentile_disc(0.5) WITHIN GROUP (ORDER BY input)::float8 AS input50, percentile_disc(0.95) WITHIN GROUP (ORDER BY input)::float8 AS input95
      FROM m`,
  );
  const p = (p50: number | null | undefined, p95: number | null | undefined): Percentiles | null =>
    p50 === null || p50 === undefined || p95 === null || p95 === undefined ? null : { p50: Math.round(p50), p95: Math.round(p95) };
  const input = p(row?.input50, row?.input95);
  return {
    scope: { type: job.type, tenantId, from: from.getTime(), to: to.getTime() },
    n: row?.n ?? 0,
    total: p(row?.total50, row?.total95),
    run: p(row?.run50, row?.run95),
    wait: p(row?.wait50, row?.wait95),
    input: input && sizeParam ? { ...input, param: sizeParam } : null,
  };
}

/**
 * Jobs of its queue, of its priority or more urgent, submitted before it and still waiting at its
 * submit: their first transition after the submit (version 1: a worker's first claim, or a cancel)
 * came after it, or has not come. Counted among the AHEAD_SCAN jobs of the queue submitted just
 * before it: job_catalog_queue_created_idx, then per job job_attempts_pkey, jobs_live_pkey and
 * job_log_job_version_idx (the partitions between the two submits only).
 */
export async function jobsAhead(db: Db, job: Subject): Promise<{ n: number; own: number; capped: boolean }> {
  // Its submit to the microsecond, read here: a job claimed within the same millisecond is before or after it.
  const [row] = await execute<{ n: number; own: number }>(
    db,
    sql`
    WITH me AS (SELECT created_at AS at FROM job_catalog WHERE id = ${job.id})
    SELECT count(*) FILTER (WHERE w)::int AS n, count(*) FILTER (WHERE w AND o.tenant_id = ${job.tenantId})::int AS own
      FROM (SELECT o.tenant_id, (
             o.priority <= ${job.priority}
               AND NOT EXISTS (SELECT 1 FROM job_attempts a WHERE a.job_id = o.id AND a.attempt = 1 AND a.claim_version = 1 AND a.claimed_at <= (SELECT at FROM me))
               AND NOT EXISTS (SELECT 1 FROM jobs_live l WHERE l.id = o.id AND l.run_version = 1 AND l.run_claimed_at <= (SELECT at FROM me))
               AND NOT EXISTS (SELECT 1 FROM job_log e WHERE e.job_id = o.id AND e.state_version = 1
                                  AND e.at >= o.created_at AND e.at <= (SELECT at FROM me))) AS w
              FROM (SELECT id, tenant_id, priority, created_at FROM job_catalog
                     WHERE queue = ${job.queue} AND created_at < (SELECT at FROM me)
                     ORDER BY created_at DESC NULLS LAST LIMIT ${AHEAD_SCAN}) o) o`,
  );
  const n = row?.n ?? 0;
  return { n, own: row?.own ?? 0, capped: n >= AHEAD_SCAN };
}

/**
 * Jobs of its queue submitted after it whose first claim came before its own (or before now, while
 * it still waits for its first): the jobs started first while it waited, and why — more urgent, or
 * another tenant's turn on a fair queue. Among the AHEAD_SCAN jobs submitted just after it:
 * job_catalog_queue_created_idx, job_attempts_pkey and jobs_live_pkey per job.
 */
async function laterStartedFirst(
  db: Db,
  job: Subject,
  asOf: number,
): Promise<{ n: number; capped: boolean; morePriority: number; otherTenants: number }> {
  // Its first claim to the microsecond, read here: a job claimed in the same millisecond is before it or after it.
  const [row] = await execute<{ n: number; morePriority: number; otherTenants: number; walked: number }>(
    db,
    sql`
    WITH first AS (SELECT coalesce((SELECT claimed_at FROM job_attempts WHERE job_id = ${job.id} AND attempt = 1),
                                   (SELECT run_claimed_at FROM jobs_live WHERE id = ${job.id} AND attempt = 1 AND lease_owner IS NOT NULL),
                                   ${new Date(asOf)}::timestamptz) AS at),
    o AS (
      SELECT id, tenant_id, priority FROM job_catalog
       WHERE queue = ${job.queue} AND created_at > ${job.createdAt} AND created_at < (SELECT at FROM first)
       ORDER BY created_at LIMIT ${AHEAD_SCAN})
    SELECT count(*) FILTER (WHERE first)::int AS n,
           count(*) FILTER (WHERE first AND priority < ${job.priority})::int AS more_priority,
           count(*) FILTER (WHERE first AND priority >= ${job.priority} AND tenant_id <> ${job.tenantId})::int AS other_tenants,
           count(*)::int AS walked
      FROM (SELECT o.*, (EXISTS (SELECT 1 FROM job_attempts a WHERE a.job_id = o.id AND a.attempt = 1 AND a.claimed_at < (SELECT at FROM first))
                      OR EXISTS (SELECT 1 FROM jobs_live l WHERE l.id = o.id AND l.attempt = 1 AND l.lease_owner IS NOT NULL
                                    AND l.run_claimed_at < (SELECT at FROM first))) AS first
              FROM o) x`,
  );
  return { n: row?.n ?? 0, capped: (row?.walked ?? 0) >= AHEAD_SCAN, morePriority: row?.morePriority ?? 0, otherTenants: row?.otherTenants ?? 0 };
}

/** At most this many changes of a queue's pause are read for one job. */
const PAUSE_SCAN = 200;

/**
 * When the job's queue was paused between its submit and `asOf`, each pause whole: the last pause or
 * resume before the submit (the state it found), then the changes since. queue_events_queue_at_idx.
 */
async function queuePauses(
  db: Db,
  job: Subject,
  asOf: number,
): Promise<{ from: number; to: number | null; by: { kind: "operator" | "api" | "tenant" | "worker" | "supervisor"; id: string } | null }[]> {
  const rows = await execute<{ event: "pause" | "resume"; at: Date; actorKind: "operator"; actorId: string }>(
    db,
    sql`
    (SELECT event, at, actor_kind, actor_id FROM queue_events
      WHERE queue = ${job.queue} AND event IN ('pause', 'resume') AND at < ${job.createdAt} ORDER BY at DESC LIMIT 1)
    UNION ALL
    (SELECT event, at, actor_kind, actor_id FROM queue_events
      WHERE queue = ${job.queue} AND event IN ('pause', 'resume') AND at >= ${job.createdAt} AND at <= ${new Date(asOf)} ORDER BY at LIMIT ${PAUSE_SCAN})`,
  );
  const out: { from: number; to: number | null; by: { kind: "operator"; id: string } }[] = [];
  let open: (typeof out)[number] | null = null;
  for (const r of rows.sort((a, b) => a.at.getTime() - b.at.getTime())) {
    if (r.event === "pause" && !open) open = { from: r.at.getTime(), to: null, by: { kind: r.actorKind, id: r.actorId } };
    else if (r.event === "resume" && open) {
      open.to = r.at.getTime();
      out.push(open);
      open = null;
    }
  }
  if (open) out.push(open);
  return out;
}

/**
 * When the job's queue was at its concurrency limit during its waits: the limit in effect
 * (queue_events_queue_at_idx) against the queue's jobs at work (claimed, running or cancelling:
 * SLOT_STATES; a pause gives the slot back) — their attempts, from the queue's jobs submitted up to
 * OCCUPANCY_LOOKBACK_MS before the waits (job_catalog_queue_created_idx, job_attempts_pkey,
 * job_log_job_version_idx for pauses), and every job it holds now (jobs_live_lease_idx). A job that
 * was at work and is not among those read makes the count lower, never higher: a stretch is only
 * said to be at the limit when it was.
 */
async function fullStretches(db: Db, job: Subject, waits: readonly Wait[], asOf: number): Promise<ExplainContext["full"]> {
  const a = Math.min(...waits.map((w) => w.from));
  const b = Math.max(...waits.map((w) => w.to));
  const limits = await execute<{ event: "limit" | "unlimit"; value: number | null; at: Date }>(
    db,
    sql`
    (SELECT event, value, at FROM queue_events WHERE queue = ${job.queue} AND event IN ('limit', 'unlimit') AND at <= ${new Date(a)} ORDER BY at DESC LIMIT 1)
    UNION ALL
    (SELECT event, value, at FROM queue_events WHERE queue = ${job.queue} AND event IN ('limit', 'unlimit') AND at > ${new Date(a)} AND at <= ${new Date(b)} ORDER BY at LIMIT ${PAUSE_SCAN})`,
  );
  const changes = limits.map((l) => ({ at: l.at.getTime(), limit: l.event === "limit" ? l.value : null })).sort((x, y) => x.at - y.at);
  if (!changes.some((c) => c.limit !== null)) return [];
  const held = await execute<{ jobId: string; from: Date; to: Date | null }>(
    db,
    sql`
    WITH j AS (SELECT id FROM job_catalog WHERE queue = ${job.queue} AND created_at <= ${new Date(b)} AND created_at >= ${new Date(a - OCCUPANCY_LOOKBACK_MS)}
                ORDER BY created_at DESC LIMIT ${AHEAD_SCAN})
    SELECT a.job_id, a.claimed_at AS "from", a.finished_at AS "to" FROM j JOIN job_attempts a ON a.job_id = j.id
     WHERE a.finished_at > ${new Date(a)} AND a.claimed_at < ${new Date(b)}
    UNION
    SELECT l.id, l.run_claimed_at, NULL FROM jobs_live l
     WHERE l.queue = ${job.queue} AND l.lease_owner IS NOT NULL AND l.run_claimed_at < ${new Date(b)}`,
  );
  const ids = [...new Set(held.map((h) => h.jobId))];
  const pauses = ids.length
    ? await execute<{ jobId: string; event: string; at: Date }>(
        db,
        sql`
        SELECT job_id, event, at FROM job_log WHERE job_id = ANY(${sql.param(ids)}::uuid[]) AND at >= ${new Date(a - OCCUPANCY_LOOKBACK_MS)}
           AND (event = 'pause' OR from_state = 'paused') ORDER BY job_id, state_version`,
      )
    : [];
  // +1 when an attempt is claimed or resumed, -1 when it ends or is paused.
  const steps: { at: number; d: number }[] = [];
  for (const h of held) {
    const end = h.to?.getTime() ?? asOf;
    steps.push({ at: h.from.getTime(), d: 1 }, { at: end, d: -1 });
    let pausedAt: number | null = null;
    for (const p of pauses.filter((x) => x.jobId === h.jobId)) {
      const t = p.at.getTime();
      if (t < h.from.getTime() || t > end) continue;
      if (p.event === "pause") pausedAt = t;
      else if (pausedAt !== null) {
        // Resumed (or ended from paused: the -1 of its end is then given back at the same instant).
        steps.push({ at: pausedAt, d: -1 }, { at: t, d: 1 });
        pausedAt = null;
      }
    }
    if (pausedAt !== null) steps.push({ at: pausedAt, d: -1 }, { at: end, d: 1 });
  }
  const instants = [...new Set([...steps.map((s) => s.at), ...changes.map((c) => c.at), a, b])].filter((t) => t >= a && t <= b).sort((x, y) => x - y);
  const limitAt = (t: number) => [...changes].reverse().find((c) => c.at <= t)?.limit ?? null;
  const occupancy = (t: number) => steps.reduce((n, s) => n + (s.at <= t ? s.d : 0), 0);
  const out: ExplainContext["full"] = [];
  for (let i = 0; i < instants.length - 1; i++) {
    const t = instants[i]!;
    const limit = limitAt(t);
    if (limit === null || occupancy(t) < limit) continue;
    const last = out.at(-1);
    const next = instants[i + 1]!;
    if (last && last.to === t && last.limit === limit) last.to = next;
    else out.push({ from: t, to: next, limit });
  }
  const inWaits = out.filter((f) => intersect([{ from: f.from, to: f.to! }], waits).length > 0);
  // Still at the limit when it was read: no end yet.
  return inWaits.map((f) => (f.to === b && b >= asOf ? { ...f, to: null } : f));
}

/**
 * The parts of its waits when no worker serving its queue was alive (the workers table: each row
 * one process, alive from its start to its stop or its last heartbeat) and no job of the queue was
 * claimed: a claim proves a worker was there, whatever the workers table holds. Null when the
 * workers' history cannot tell (a worker that took the job is missing from it).
 */
async function noWorkerStretches(
  db: Db,
  job: Subject,
  waits: readonly Wait[],
  runs: readonly ExplainRun[],
  asOf: number,
): Promise<Interval[] | null> {
  const since = new Date(Math.min(...waits.map((w) => w.from)));
  const rows = await execute<{ id: string; from: Date; lastSeen: Date; stopped: Date | null }>(
    db,
    sql`
    SELECT id, started_at AS "from", last_seen_at AS last_seen, stopped_at AS stopped FROM workers
     WHERE last_seen_at >= ${since} AND started_at <= ${new Date(asOf)} AND ${job.queue} = ANY(queues)
     ORDER BY last_seen_at DESC LIMIT 2000`,
  );
  if (rows.length >= 2000) return null;
  const known = new Map(rows.map((r) => [r.id, r]));
  for (const r of runs) {
    const w = known.get(r.workerId);
    if (!w || w.from.getTime() > r.claimedAt.getTime()) return null;
  }
  const alive = rows.map((r) => ({
    from: r.from.getTime(),
    // A worker still beating is alive up to now; one that went silent, up to its last heartbeat.
    to: r.stopped ? r.stopped.getTime() : asOf - r.lastSeen.getTime() <= SILENT_AFTER_MS ? asOf : r.lastSeen.getTime(),
  }));
  const candidates = subtract(waits, alive).filter((i) => i.to - i.from >= NO_WORKER_FLOOR_MS);
  const out: Interval[] = [];
  for (const c of mergeAll(candidates)) {
    const [hit] = await execute<{ claimed: boolean }>(
      db,
      sql`
      SELECT EXISTS (SELECT 1 FROM job_attempts a JOIN job_catalog k ON k.id = a.job_id
                      WHERE k.queue = ${job.queue} AND a.finished_at >= ${new Date(c.from)} AND a.claimed_at >= ${new Date(c.from)} AND a.claimed_at < ${new Date(c.to)})
          OR EXISTS (SELECT 1 FROM jobs_live l WHERE l.queue = ${job.queue} AND l.lease_owner IS NOT NULL
                      AND l.run_claimed_at >= ${new Date(c.from)} AND l.run_claimed_at < ${new Date(c.to)}) AS claimed`,
    );
    if (!hit?.claimed) out.push(c);
  }
  return out;
}

/**
 * Per attempt whose lease expired: its worker's last heartbeat when it fell inside the attempt (the
 * moment it went silent, not when the supervisor noticed), and what the supervisor recorded when it
 * recovered it — the job blamed for the worker's death, and whether the attempt was refunded
 * (job_attempts_pkey, workers_pkey, job_log_job_version_idx from the job's submit on).
 */
async function lostAttempts(db: Db, job: Subject): Promise<ExplainContext["crashes"]> {
  const rows = await execute<{
    attempt: number;
    silentAt: Date | null;
    event: string | null;
    payload: { crash?: { blamed?: { jobId: string; type: string } | null } } | null;
  }>(
    db,
    sql`
    SELECT a.attempt, w.last_seen_at AS silent_at, e.event, e.payload
      FROM job_attempts a
      LEFT JOIN workers w ON w.id = a.worker_id AND w.last_seen_at BETWEEN a.claimed_at AND a.finished_at
      LEFT JOIN LATERAL (SELECT e.event, e.payload FROM job_log e
                          WHERE e.job_id = a.job_id AND e.attempt = a.attempt AND e.actor_kind = 'supervisor' AND e.at >= ${job.createdAt}
                          ORDER BY e.state_version DESC LIMIT 1) e ON true
     WHERE a.job_id = ${job.id} AND a.outcome = 'lease_expired'`,
  );
  return Object.fromEntries(
    rows.map((r) => [
      r.attempt,
      { silentAt: r.silentAt?.getTime() ?? null, blamedOn: r.payload?.crash?.blamed ?? null, refunded: r.event === "rescue" },
    ]),
  );
}

/**
 * The worker deaths blamed on the job (its lost attempts that were not a bystander's), and the other
 * jobs those deaths took down (their lost attempts on the same workers: job_attempts_worker_trouble_idx).
 */
async function crashedWorkersOf(db: Db, job: Subject, withOthers: boolean): Promise<ExplainContext["crashedWorkers"]> {
  const [row] = await execute<{ crashes: number; tookDown: number | null }>(
    db,
    sql`
    WITH mine AS (SELECT worker_id FROM job_attempts WHERE job_id = ${job.id} AND outcome = 'lease_expired' AND error_class IS DISTINCT FROM ${WORKER_LOST_CLASS})
    SELECT (SELECT count(*)::int FROM mine) AS crashes,
           ${
             withOthers
               ? sql`(SELECT count(*)::int FROM job_attempts o WHERE o.worker_id IN (SELECT worker_id FROM mine) AND o.job_id <> ${job.id}
                      AND o.outcome <> 'succeeded' AND o.outcome = 'lease_expired' AND o.error_class = ${WORKER_LOST_CLASS})`
               : sql`NULL::int`
           } AS took_down`,
  );
  return row && row.crashes > 0 ? { crashes: row.crashes, tookDown: row.tookDown } : null;
}

function numberAt(params: unknown, key: string): number | null {
  const v = params && typeof params === "object" ? (params as Record<string, unknown>)[key] : undefined;
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

/**
 * The context of "why was this slow" for one job as `viewer` may see it, or null when the job does
 * not exist or is not theirs. Read by the job page for its first paint and by
 * GET /api/insight/jobs/[id]/slowness after. `detail` is the job's record when the caller has
 * already read it (under the same viewer).
 */
export async function explainContextFor(
  viewer: Viewer,
  id: string,
  opts: { detail?: JobDetail | null; tx?: Tx } = {},
): Promise<ExplainContext | null> {
  if (!isUuid(id)) return null;
  const tenant = tenantScopeOf(viewer);
  const read = async (db: Tx) => {
    const detail = opts.detail !== undefined ? opts.detail : await getJobDetail(db, id);
    if (!detail || (tenant && detail.job.tenantId !== tenant)) return null;
    return explainContext(db, detail, {
      tenantOnly: tenant !== null,
      // Counts over every tenant's jobs run where every tenant is seen; only numbers and times leave.
      all: tenant ? async (fn) => withScope(await readPoolAfter(), { all: true }, fn) : undefined,
    });
  };
  return opts.tx ? read(opts.tx) : withViewerRead(viewer, read);
}

/**
 * A job's explanation as `audience` reads it, on a connection that sees every tenant (the owner, or
 * a staff scope): its record, the context, the claims and the words. For scripts and tests (the
 * claim checker's runs); the console builds the same from the page's reads (app/jobs/[id]).
 */
export async function explainJob(db: Db, id: string, opts: { audience: Audience; asOf?: number; timeZone?: string }) {
  const raw = await getJobDetail(db, id);
  if (!raw) return null;
  const asOf = opts.asOf ?? Date.now();
  const tenant = opts.audience === "tenant";
  const context = await explainContext(db, raw, { tenantOnly: tenant, asOf });
  const detail = tenant ? redactForTenant(raw) : raw;
  const explanation = explain(detail.job, detail.runs, detail.events, context);
  return { detail, context, explanation, words: render(explanation, detail.job, { audience: opts.audience, timeZone: opts.timeZone }) };
}

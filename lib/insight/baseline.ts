import type { Db } from "../db/client";
import type { EventRecord, RunRecord } from "../jobs/queries";
import type { ActorKind } from "../fsm/table";
import type { JobRow } from "../jobs/types";
import { analyzeSlowness, baselineOf, type Baseline, type SlownessJob } from "./slowness";

/** How many recent finished jobs of the same type (or type and tenant) a comparison is taken from. */
export const BASELINE_SAMPLE = 200;
/** How recent they must be. */
export const BASELINE_WINDOW_MS = 7 * 24 * 3_600_000;
/** "Jobs ahead at submit" counts among at most this many jobs submitted just before it. */
export const AHEAD_SCAN = 5_000;

export type SlownessContextData = {
  /** Jobs of its queue (every tenant's) waiting ahead of it at submit. */
  aheadAtSubmit: number | null;
  /** The count reached AHEAD_SCAN: at least that many. */
  aheadCapped: boolean;
  /** Of those, its own tenant's (the rest are other customers': a count, never whose). */
  aheadOwn: number | null;
  baselines: Baseline[];
  /** When its queue was paused since its submit (epoch ms); the operator's id is left out for a tenant. */
  queuePauses: { from: number; to: number | null; byKind: ActorKind; by: string }[];
  /** When workers serving its queue were alive since its submit (epoch ms); null when the workers' history cannot tell. */
  serving: { from: number; to: number }[] | null;
  /** Per attempt whose lease expired: its worker's last heartbeat, when that fell inside the attempt (epoch ms). */
  silentAt: Record<number, number>;
};

type Subject = Pick<JobRow, "id" | "type" | "queue" | "tenantId" | "priority" | "createdAt">;

/**
 * What the "why was this slow" analysis compares a job with: p50/p95 per
 * phase of recent finished jobs of its type (all tenants: staff only) and of
 * its type and tenant, and how many jobs of its queue were ahead of it when it
 * was submitted. Each baseline runs the same pure analysis over the sample, so
 * the phases compared are defined once.
 *
 * `tenantOnly`: the viewer is a tenant member; only their tenant's jobs are
 * read (row-level security enforces the same).
 */
export async function slownessContext(
  sql: Db,
  job: Subject,
  opts: { tenantOnly: boolean; now?: Date; ahead?: (job: Subject) => Promise<JobsAhead> },
): Promise<SlownessContextData> {
  const now = opts.now ?? new Date();
  const [tenant, all, ahead, pauses, serving, silentAt] = await Promise.all([
    sampleBaseline(sql, job, { tenant: job.tenantId, label: opts.tenantOnly ? `your ${job.type} jobs` : `${job.tenantId}'s ${job.type} jobs`, now }),
    opts.tenantOnly ? null : sampleBaseline(sql, job, { label: `${job.type} jobs (all tenants)`, now }),
    opts.ahead ? opts.ahead(job) : jobsAhead(sql, job),
    queuePauses(sql, job, now),
    servingWorkers(sql, job, now),
    lastHeartbeats(sql, job),
  ]);
  return {
    aheadAtSubmit: ahead.n,
    aheadCapped: ahead.capped,
    aheadOwn: ahead.own,
    baselines: [tenant, ...(all ? [all] : [])],
    // A tenant sees that an operator paused the queue, never who.
    queuePauses: opts.tenantOnly ? pauses.map((p) => ({ ...p, by: "" })) : pauses,
    serving,
    silentAt,
  };
}

/** At most this many changes of a queue's pause are read for one job. */
const PAUSE_SCAN = 200;

/**
 * When the job's queue was paused between its submit and now: the last pause or resume before the
 * submit (the state it found), then the changes since. queue_events_queue_at_idx, two short ranges.
 */
async function queuePauses(sql: Db, job: Subject, now: Date): Promise<SlownessContextData["queuePauses"]> {
  const rows = await sql<{ event: "pause" | "resume"; at: Date; actorKind: ActorKind; actorId: string }[]>`
    (SELECT event, at, actor_kind, actor_id FROM queue_events
      WHERE queue = ${job.queue} AND event IN ('pause', 'resume') AND at < ${job.createdAt} ORDER BY at DESC LIMIT 1)
    UNION ALL
    (SELECT event, at, actor_kind, actor_id FROM queue_events
      WHERE queue = ${job.queue} AND event IN ('pause', 'resume') AND at >= ${job.createdAt} AND at <= ${now} ORDER BY at LIMIT ${PAUSE_SCAN})`;
  const out: SlownessContextData["queuePauses"] = [];
  let open: (typeof out)[number] | null = null;
  for (const r of rows.sort((a, b) => a.at.getTime() - b.at.getTime())) {
    if (r.event === "pause" && !open) open = { from: r.at.getTime(), to: null, byKind: r.actorKind, by: r.actorId };
    else if (r.event === "resume" && open) {
      open.to = r.at.getTime();
      out.push(open);
      open = null;
    }
  }
  if (open) out.push(open);
  return out;
}

/** Workers seen since the submit are read up to this many. */
const SERVING_SCAN = 2_000;

/**
 * When workers that serve the job's queue were alive since its submit: each worker row is one
 * process (its id is fresh per start), alive from started_at to its stop or, if it went silent,
 * its last heartbeat. workers_last_seen_idx (last_seen_at DESC) finds those seen since the submit.
 * The history is trusted only when it holds every worker that took the job (a row removed or
 * reused would make a false gap): otherwise null, and no "no worker" claim is made.
 */
async function servingWorkers(sql: Db, job: Subject, now: Date): Promise<SlownessContextData["serving"]> {
  const [rows, takers] = await Promise.all([
    sql<{ id: string; from: Date; to: Date }[]>`
      SELECT id, started_at AS "from", coalesce(stopped_at, last_seen_at) AS "to" FROM workers
       WHERE last_seen_at >= ${job.createdAt} AND started_at <= ${now} AND ${job.queue} = ANY(queues)
       ORDER BY last_seen_at DESC LIMIT ${SERVING_SCAN}`,
    sql<{ workerId: string; claimedAt: Date }[]>`
      SELECT worker_id, claimed_at FROM job_attempts WHERE job_id = ${job.id}
      UNION ALL
      SELECT run_worker, run_claimed_at FROM jobs_live WHERE id = ${job.id} AND run_worker IS NOT NULL`,
  ]);
  if (rows.length >= SERVING_SCAN) return null;
  const known = new Map(rows.map((r) => [r.id, r]));
  // Every worker that claimed the job must be in the history, alive at its claim.
  for (const t of takers) {
    const w = known.get(t.workerId);
    if (!w || w.from.getTime() > t.claimedAt.getTime()) return null;
  }
  if (takers.length === 0 && rows.length === 0) {
    // No worker seen since its submit: true only if the workers' history reaches back before it.
    const [older] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM (SELECT 1 FROM workers WHERE started_at <= ${job.createdAt} LIMIT 1) x`;
    if (!older?.n) return null;
  }
  return rows.map((r) => ({ from: r.from.getTime(), to: r.to.getTime() }));
}

/**
 * For each of the job's attempts whose lease expired: its worker's last heartbeat (workers.last_seen_at),
 * when it fell inside the attempt — the moment it went silent, not when the supervisor noticed.
 * A worker that came back later says nothing about when it stopped beating for this job: no time then.
 * job_attempts_pkey, workers_pkey.
 */
async function lastHeartbeats(sql: Db, job: Subject): Promise<Record<number, number>> {
  const rows = await sql<{ attempt: number; at: Date }[]>`
    SELECT a.attempt, w.last_seen_at AS at FROM job_attempts a JOIN workers w ON w.id = a.worker_id
     WHERE a.job_id = ${job.id} AND a.outcome = 'lease_expired' AND w.last_seen_at BETWEEN a.claimed_at AND a.finished_at`;
  return Object.fromEntries(rows.map((r) => [r.attempt, r.at.getTime()]));
}

/** At most this many of the newest catalog entries of the type are read to find the sample (the rest may still be live). */
export const BASELINE_SCAN = 5_000;

/**
 * The newest BASELINE_SAMPLE finished jobs of the type (and tenant) among its
 * BASELINE_SCAN newest submitted in the window. A job is finished when it has no
 * live row; its state is its last transition, the last of the events read for it.
 * Served by job_catalog_type_created_idx (type, created_at DESC), or
 * job_catalog_tenant_type_created_idx for one tenant, walked in order until the
 * sample is full (NULLS LAST as in the indexes: with the default, NULLS FIRST, the
 * planner sorts every job of the type), jobs_live_pkey per entry; then the sample's
 * runs (job_attempts_pkey) and transitions (the `job_events` view by job id: the
 * catalog's and job_attempts' primary keys, job_log_job_version_idx on the day
 * partitions since `since` only — the sample's jobs were submitted after it, so were
 * their transitions).
 */
async function sampleBaseline(sql: Db, job: Subject, o: { tenant?: string; label: string; now: Date }): Promise<Baseline> {
  const since = new Date(o.now.getTime() - BASELINE_WINDOW_MS);
  // The live-row test is a subplan run per entry, in index order (NOT (SELECT EXISTS …) is not
  // turned into a join): the walk stops at the sample's size. As an anti-join it was planned as a
  // hash of every live job and a sort of all BASELINE_SCAN entries (151 ms for one tenant at 1M jobs).
  const jobs = await sql<(Omit<SlownessJob, "state"> & { id: string })[]>`
    SELECT id, type, queue, created_at, not_before
      FROM (SELECT id, type, queue, created_at, not_before FROM job_catalog
             WHERE type = ${job.type} ${o.tenant ? sql`AND tenant_id = ${o.tenant}` : sql``}
               AND created_at >= ${since} AND created_at <= ${o.now}
             ORDER BY created_at DESC NULLS LAST LIMIT ${BASELINE_SCAN}) s
     WHERE s.id <> ${job.id} AND NOT (SELECT EXISTS (SELECT 1 FROM jobs_live l WHERE l.id = s.id))
     ORDER BY s.created_at DESC NULLS LAST LIMIT ${BASELINE_SAMPLE}`;
  if (jobs.length === 0) return baselineOf(o.label, []);
  const ids = jobs.map((j) => j.id);
  const [runs, events] = await Promise.all([
    sql<(RunRecord & { jobId: string })[]>`
      SELECT job_id, attempt, worker_id, claimed_at, started_at, finished_at, outcome, error_class
        FROM job_attempts WHERE job_id = ANY(${ids}::uuid[])`,
    sql<(EventRecord & { jobId: string })[]>`
      SELECT job_id, event, to_state, actor_kind, actor_id, attempt, state_version, at
        FROM job_events WHERE job_id = ANY(${ids}::uuid[]) AND at >= ${since} ORDER BY job_id, state_version`,
  ]);
  const runsOf = group(runs);
  const eventsOf = group(events);
  const reports = jobs.flatMap((j) => {
    const evs = eventsOf.get(j.id) ?? [];
    const last = evs.at(-1);
    if (!last) return [];
    return [analyzeSlowness({ ...j, state: last.toState }, runsOf.get(j.id) ?? [], evs, { now: o.now.getTime() })];
  });
  return baselineOf(o.label, reports);
}

/**
 * Jobs of its queue, of its priority or more urgent, submitted before it and
 * still waiting at its submit: their first transition after the submit (version
 * 1: a worker's first claim, or a cancel) came after it, or has not come. Counted
 * among the AHEAD_SCAN jobs of the queue submitted just before it: served by
 * job_catalog_queue_created_idx (queue, created_at DESC), then per job
 * job_attempts_pkey (the first attempt's claim), jobs_live_pkey (a first attempt
 * still open) and job_log_job_version_idx (a cancel while queued; the partitions
 * between the two submits only).
 */
export type JobsAhead = { n: number; own: number; capped: boolean };

export async function jobsAhead(sql: Db, job: Subject): Promise<JobsAhead> {
  const [row] = await sql<{ n: number; own: number }[]>`
    SELECT count(*) FILTER (WHERE w)::int AS n, count(*) FILTER (WHERE w AND o.tenant_id = ${job.tenantId})::int AS own
      FROM (SELECT o.tenant_id, (
             o.priority <= ${job.priority}
               AND NOT EXISTS (SELECT 1 FROM job_attempts a WHERE a.job_id = o.id AND a.attempt = 1 AND a.claim_version = 1 AND a.claimed_at <= ${job.createdAt})
               AND NOT EXISTS (SELECT 1 FROM jobs_live l WHERE l.id = o.id AND l.run_version = 1 AND l.run_claimed_at <= ${job.createdAt})
               AND NOT EXISTS (SELECT 1 FROM job_log e WHERE e.job_id = o.id AND e.state_version = 1
                                  AND e.at >= o.created_at AND e.at <= ${job.createdAt})) AS w
              FROM (SELECT id, tenant_id, priority, created_at FROM job_catalog
                     WHERE queue = ${job.queue} AND created_at < ${job.createdAt}
                     ORDER BY created_at DESC NULLS LAST LIMIT ${AHEAD_SCAN}) o) o`;
  const n = row?.n ?? 0;
  return { n, own: row?.own ?? 0, capped: n >= AHEAD_SCAN };
}

function group<T extends { jobId: string }>(rows: readonly T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) {
    const list = m.get(r.jobId) ?? [];
    list.push(r);
    m.set(r.jobId, list);
  }
  return m;
}

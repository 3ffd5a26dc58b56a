import "server-only";
import type { Db } from "../db/client";
import { badText } from "../input";
import { AppError } from "../result";
import { STATES, TERMINAL_STATES, type JobState } from "../fsm/table";
import { latencySampleWindow } from "../insight/queries";
import { SILENT_AFTER_MS } from "../insight/windows";
import { COUNT_CAP, type StateCount } from "./queries";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/*
 * The queues page's reads. Each is bounded whatever the size of the tables; the index
 * that serves it is named beside it:
 * - queue names: a skip scan of job_catalog_queue_created_idx (one probe per queue) from the page's
 *   start, the `queues` rows and the queues live workers name, QUEUE_PAGE at a time (a search walks
 *   at most NAME_SCAN names);
 * - queued jobs: jobs_live_claim_idx (queue, priority, fair_tag, not_before, id), at most
 *   COUNT_CAP + 1 entries per queue; the oldest due job among the first OLDEST_SCAN of them;
 * - leased jobs: jobs_live_lease_idx (queue, lease_owner), at most COUNT_CAP + 1 per queue;
 * - paused and retry_wait jobs: no index leads by queue for them, so at most WAITING_SCAN of them
 *   (jobs_live_waiting_idx) are read and grouped by queue: exact below, lower bounds above;
 * - the last hour: the newest QUEUE_SAMPLE attempts that ended (job_attempts_finished_brin, the
 *   window narrowed as for the latency charts), each attempt's queue by job_catalog_pkey.
 */

export const LIVE_STATES = STATES.filter((s) => !(TERMINAL_STATES as readonly JobState[]).includes(s)) as Exclude<
  JobState,
  (typeof TERMINAL_STATES)[number]
>[];
export type LiveState = (typeof LIVE_STATES)[number];

/** Queues on one page of the queues page. */
export const QUEUE_PAGE = 50;
/** Most queue names a search walks (in name order) looking for a page of matches. */
export const NAME_SCAN = 20_000;
/** The oldest due job is looked for among this many of a queue's queued jobs, in claim order. */
export const OLDEST_SCAN = 1_000;
/** Paused and retry_wait jobs read (all queues together) to count them by queue. */
export const WAITING_SCAN = 10_000;
/** Ended attempts read for a queue's last hour: a busy system's sample covers the last minutes only. */
export const QUEUE_SAMPLE = 10_000;

export type QueueWorker = { id: string; concurrency: number; held: number; free: number };
export type QueueChangeRow = { event: string; value: number | null; actorKind: string; actorId: string; at: Date };

export type QueueRow = {
  name: string;
  paused: boolean;
  concurrencyLimit: number | null;
  /** The cap's count of leased jobs (kept by the write path while the queue is capped). */
  leased: number;
  fair: boolean;
  updatedAt: Date | null;
  updatedBy: string | null;
  counts: Record<LiveState, StateCount>;
  /** When the oldest due job became claimable (among the first OLDEST_SCAN in claim order); null: none due. */
  oldestDueAt: Date | null;
  lastHour: { succeeded: number; failed: number; other: number; failureRate: number | null; perMinute: number; windowMs: number };
  workers: QueueWorker[];
  /** The newest changes of its settings, newest first. */
  changes: QueueChangeRow[];
};

const capped = (n: number, cap = COUNT_CAP): StateCount => (n > cap ? { n: cap, capped: true } : { n, capped: false });

/** Which page: the queues named after `after`, those whose name contains `search` (any case). */
export type QueuePageRequest = { after?: string; search?: string };
export type QueuePage = { queues: QueueRow[]; next: string | null };

/** The page a URL asks for (`q`, `after`): text that can be stored and compared, each at most 100 characters, or an AppError. */
export function queuePageOf(params: URLSearchParams | Record<string, string | string[] | undefined>): QueuePageRequest {
  const get = (k: string) => {
    const v = params instanceof URLSearchParams ? params.get(k) : params[k];
    return (Array.isArray(v) ? v[0] : v) ?? "";
  };
  const out: QueuePageRequest = {};
  for (const [key, name] of [
    ["search", "q"],
    ["after", "after"],
  ] as const) {
    const v = get(name);
    if (v.length > 100 || badText(v)) throw new AppError("invalid_input", `query parameter ${name}: at most 100 characters of text`);
    if (v) out[key] = v;
  }
  return out;
}

/**
 * One page of the queues that have jobs, settings or a live worker, in name order, each with its
 * depth, latency, last hour and workers. `next` is the `after` of the following page.
 */
export async function listQueues(db: Db, page: QueuePageRequest = {}, now = new Date()): Promise<QueuePage> {
  const liveSince = new Date(now.getTime() - SILENT_AFTER_MS);
  const workers = await execute<{ id: string; concurrency: number; queues: string[] }>(
    db,
    sql`
    SELECT id, concurrency, queues FROM workers WHERE stopped_at IS NULL AND last_seen_at >= ${liveSince} ORDER BY id LIMIT 500`,
  );
  const after = page.after ?? "";
  const search = (page.search ?? "").trim().toLowerCase();
  const names = await execute<{ name: string }>(
    db,
    sql`
    WITH RECURSIVE q AS (
      (SELECT queue, 1 AS walked FROM job_catalog WHERE queue > ${after} ORDER BY queue LIMIT 1)
      UNION ALL
      SELECT (SELECT queue FROM job_catalog WHERE queue > q.queue ORDER BY queue LIMIT 1), q.walked + 1
        FROM q WHERE q.queue IS NOT NULL AND q.walked < ${NAME_SCAN})
    SELECT name FROM (
      (SELECT queue AS name FROM q WHERE queue IS NOT NULL AND strpos(lower(queue), ${search}) > 0 LIMIT ${QUEUE_PAGE + 1})
      UNION
      (SELECT name FROM queues WHERE name > ${after} AND strpos(lower(name), ${search}) > 0 ORDER BY name LIMIT ${QUEUE_PAGE + 1})
      UNION
      SELECT w FROM unnest(${sql.param(workers.flatMap((w) => w.queues))}::text[]) w WHERE w > ${after} AND strpos(lower(w), ${search}) > 0) n
    ORDER BY name LIMIT ${QUEUE_PAGE + 1}`,
  );
  const more = names.length > QUEUE_PAGE;
  const queueNames = names.slice(0, QUEUE_PAGE).map((n) => n.name);
  if (queueNames.length === 0) return { queues: [], next: null };
  return { queues: await describeQueues(db, queueNames, workers, now), next: more ? queueNames.at(-1)! : null };
}

type LiveWorker = { id: string; concurrency: number; queues: string[] };

async function describeQueues(db: Db, queueNames: string[], workers: LiveWorker[], now: Date): Promise<QueueRow[]> {
  const [perQueue, waiting, hour, held] = await Promise.all([
    readPerQueue(db, queueNames, now),
    execute<{ queue: string; state: LiveState; n: number; total: number }>(
      db,
      sql`
      SELECT queue, state, count(*)::int AS n, sum(count(*)) OVER ()::int AS total
        FROM (SELECT queue, state FROM jobs_live WHERE state IN ('paused', 'retry_wait') LIMIT ${WAITING_SCAN + 1}) x
       GROUP BY queue, state`,
    ),
    lastHour(db, now),
    workers.length === 0
      ? Promise.resolve([])
      : execute<{ owner: string; n: number }>(
          db,
          sql`
          SELECT owner, count(*)::int AS n FROM (
            SELECT lease_owner AS owner FROM jobs_live WHERE state IN ('claimed', 'running', 'cancelling') AND lease_owner = ANY(${sql.param(workers.map((w) => w.id))}::text[])
            UNION ALL
            SELECT lease_owner FROM jobs_live WHERE state = 'paused' AND lease_owner = ANY(${sql.param(workers.map((w) => w.id))}::text[])) h
           GROUP BY owner`,
        ),
  ]);
  const heldBy = new Map(held.map((h) => [h.owner, h.n]));
  const waitingCapped = (waiting[0]?.total ?? 0) > WAITING_SCAN;
  return perQueue.map((q) => {
    const counts = Object.fromEntries(LIVE_STATES.map((s) => [s, { n: 0, capped: false }])) as Record<LiveState, StateCount>;
    counts.queued = capped(q.queued);
    const leasedTotal = Object.values(q.leasedByState ?? {}).reduce((a, b) => a + b, 0);
    for (const s of ["claimed", "running", "cancelling"] as const) {
      counts[s] = { n: Math.min(q.leasedByState?.[s] ?? 0, COUNT_CAP), capped: leasedTotal > COUNT_CAP };
    }
    for (const w of waiting.filter((x) => x.queue === q.name)) counts[w.state] = waitingCapped ? { n: w.n, capped: true } : capped(w.n);
    const h = hour.byQueue.get(q.name) ?? { succeeded: 0, failed: 0, other: 0 };
    const ended = h.succeeded + h.failed + h.other;
    return {
      name: q.name,
      paused: q.paused ?? false,
      concurrencyLimit: q.concurrencyLimit,
      leased: q.leased ?? 0,
      fair: q.fair ?? false,
      updatedAt: q.updatedAt,
      updatedBy: q.updatedBy,
      counts,
      oldestDueAt: q.oldestDueAt,
      lastHour: { ...h, failureRate: ended ? h.failed / ended : null, perMinute: ended / (hour.windowMs / 60_000), windowMs: hour.windowMs },
      workers: workers
        .filter((w) => w.queues.includes(q.name))
        .map((w) => {
          const n = heldBy.get(w.id) ?? 0;
          return { id: w.id, concurrency: w.concurrency, held: n, free: Math.max(0, w.concurrency - n) };
        }),
      changes: q.changes ?? [],
    };
  });
}

type PerQueue = {
  name: string;
  paused: boolean | null;
  concurrencyLimit: number | null;
  leased: number | null;
  fair: boolean | null;
  updatedAt: Date | null;
  updatedBy: string | null;
  queued: number;
  oldestDueAt: Date | null;
  leasedByState: Partial<Record<LiveState, number>> | null;
  changes: QueueChangeRow[] | null;
};

/** Per queue, one probe of each index: settings, queued count, oldest due job, leased jobs by state, newest changes. */
function readPerQueue(db: Db, names: string[], now: Date) {
  return execute<PerQueue>(
    db,
    sql`
    SELECT q.name, s.paused, s.concurrency_limit, s.leased, s.fair, s.updated_at, s.updated_by,
           (SELECT count(*)::int FROM (
              SELECT 1 FROM jobs_live l WHERE l.queue = q.name AND l.state = 'queued' LIMIT ${COUNT_CAP + 1}) x) AS queued,
           (SELECT min(x.not_before) FROM (
              SELECT l.not_before FROM jobs_live l WHERE l.queue = q.name AND l.state = 'queued'
               ORDER BY l.priority, l.fair_tag, l.not_before, l.id LIMIT ${OLDEST_SCAN}) x
             WHERE x.not_before <= ${now}) AS oldest_due_at,
           (SELECT json_object_agg(y.state, y.n) FROM (
              SELECT x.state, count(*)::int AS n FROM (
                SELECT l.state FROM jobs_live l WHERE l.queue = q.name AND l.state IN ('claimed', 'running', 'cancelling') LIMIT ${COUNT_CAP + 1}) x
               GROUP BY x.state) y) AS leased_by_state,
           (SELECT json_agg(json_build_object('event', e.event, 'value', e.value, 'actorKind', e.actor_kind, 'actorId', e.actor_id, 'at', e.at)) FROM (
              SELECT * FROM queue_events e WHERE e.queue = q.name ORDER BY e.at DESC LIMIT 5) e) AS changes
      FROM unnest(${sql.param(names)}::text[]) AS q(name)
      LEFT JOIN queues s ON s.name = q.name
     ORDER BY q.name`,
  ).then((rows) => rows.map((r) => ({ ...r, changes: r.changes?.map((c) => ({ ...c, at: new Date(c.at) })) ?? null })));
}

/**
 * Attempts that ended in the last hour, by queue: the newest QUEUE_SAMPLE of them (a quiet system's
 * whole hour, a busy one's last minutes), each attempt's queue looked up in the catalog by key.
 * `failed` counts failed and lease_expired attempts, as the overview's failure rate does.
 */
async function lastHour(db: Db, now: Date) {
  const { from } = await latencySampleWindow(db, "1h", now, QUEUE_SAMPLE);
  const rows = await execute<{ queue: string; succeeded: number; failed: number; other: number }>(
    db,
    sql`
    SELECT queue, count(*) FILTER (WHERE outcome = 'succeeded')::int AS succeeded,
           count(*) FILTER (WHERE outcome IN ('failed', 'lease_expired'))::int AS failed,
           count(*) FILTER (WHERE outcome NOT IN ('succeeded', 'failed', 'lease_expired'))::int AS other
      FROM (SELECT a.outcome, (SELECT c.queue FROM job_catalog c WHERE c.id = a.job_id) AS queue
              FROM job_attempts a WHERE a.finished_at >= ${from} AND a.finished_at <= ${now}
             ORDER BY a.finished_at DESC LIMIT ${QUEUE_SAMPLE}) x
     GROUP BY queue`,
  );
  return { windowMs: now.getTime() - from.getTime(), byQueue: new Map(rows.map(({ queue, ...r }) => [queue, r])) };
}

export type QueueStatus = {
  name: string;
  paused: boolean;
  pausedAt: Date | null;
  pausedBy: string | null;
  concurrencyLimit: number | null;
  fair: boolean;
};

/** One queue's settings, and when and by whom it was paused (the jobs list's banner). */
export async function getQueueStatus(db: Db, name: string): Promise<QueueStatus> {
  const [row] = await execute<QueueStatus>(
    db,
    sql`
    SELECT q.name, coalesce(s.paused, false) AS paused, s.concurrency_limit, coalesce(s.fair, false) AS fair,
           p.at AS paused_at, p.actor_id AS paused_by
      FROM (SELECT ${name}::text AS name) q
      LEFT JOIN queues s ON s.name = q.name
      LEFT JOIN LATERAL (
        SELECT e.at, e.actor_id FROM queue_events e WHERE e.queue = q.name AND e.event = 'pause' AND s.paused ORDER BY e.at DESC LIMIT 1) p ON true`,
  );
  return row!;
}

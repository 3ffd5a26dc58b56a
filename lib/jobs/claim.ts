import { sql, type Placeholder, type SQL } from "drizzle-orm";
import type { Db } from "../db/client";
import { prepared } from "../db/drizzle";
import { shapeOf } from "./shape";
import { markCte } from "./write";
import type { ClaimedJob } from "./types";

const CLAIM = shapeOf("queued", "claim", "worker");
if (!CLAIM?.opensRun || CLAIM.attemptInc !== 1) throw new Error("the transition table has no queued → claim by a worker that opens a run");
const START = shapeOf(CLAIM.to, "start", "worker");
if (!START?.startsRun) throw new Error(`the transition table has no ${CLAIM.to} → start by a worker`);

export type ClaimOptions = {
  workerId: string;
  queues: readonly string[];
  limit: number;
  /**
   * Also apply `start` to the first `startNow` claimed jobs (in claim order), in the same UPDATE:
   * queued → claimed → running, two versions, one write of the row. The worker's runtime starts
   * every job it claims (it claims what it will run within about a round trip); the rest stay
   * `claimed` until a `start`.
   */
  startNow?: number;
  /**
   * Claim only from the queues that have no cap, and count no slots: one read of the queues' settings
   * and no UPDATE of them in the statement. An unbatched worker's rounds claim this way while none of
   * its queues is capped, and the answer says when one is (`capped`): a capped queue's jobs then wait for
   * the next round, a full one (docs/decisions.md, "A claim counts slots only where a queue is capped").
   */
  lean?: boolean;
  /** Claim only these jobs (the demo seeder and tests); otherwise the next due jobs in claim order. */
  onlyJobIds?: readonly string[];
  at?: Date;
};

/** The columns a claim hands to the worker (what a handler's context shows). */
export const CLAIMED_COLUMNS = sql`id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version, params, created_at`;

/**
 * The claim's CTEs (`picked`, `claimed`), placed after `markCte` in a WITH list. `startsAll`: every
 * claimed job is started (`startNow` ≥ `limit`, the worker's rounds), so no job's rank is computed.
 *
 * `picked` locks due queued jobs with SKIP LOCKED, reading the claim index one queue at a time
 * (queue = q, then priority, fairness tag and due time straight from the index), in its own CTE
 * so the LIMIT bounds the rows the UPDATE touches. A paused queue gives nothing; a capped one at
 * most its free slots. `claimed` joins them by primary key: in the generic plan the workers run
 * (lib/db/client.ts `genericPlans`), one index lookup per picked row whatever the batch or table
 * size. (An extra `id = ANY(ARRAY(SELECT id FROM picked))` made the generic plan rescan every
 * picked id for each picked row: 55 of a 70 ms round at 500 jobs. A custom plan may still hash-join
 * over a small table, by cost.) It increments the attempt in the same UPDATE (the fencing token),
 * takes the lease and opens the attempt on the row.
 */
export function claimCtes(opts: { withReports?: boolean; startsAll?: boolean; form?: ClaimForm } = {}): SQL {
  const ph = (name: string) => sql.placeholder(name);
  const at = sql`coalesce(${ph("claimAt")}::timestamptz, now())`;
  const form = opts.form ?? "full";
  if (form === "oneQueue") {
    // Its picks are all started: it ranks none (a window function cannot sit beside FOR UPDATE).
    if (!opts.startsAll) throw new Error("claimCtes: a one-queue claim starts all it claims");
    return sql`${leanOneQueue(ph, at)},
  ${claimedCte(ph, at, true)}`;
  }
  const queues =
    form === "lean"
      ? sql`
  -- Lean: one read of the settings; a capped queue gives nothing here, and the answer says so (CAPPED).
  open_queues AS MATERIALIZED (
    SELECT q.name, CASE WHEN s.concurrency_limit IS NULL THEN ${ph("limit")}::int ELSE 0 END AS room, s.concurrency_limit IS NOT NULL AS capped
      FROM mark, unnest(${ph("queues")}::text[]) AS q(name)
      LEFT JOIN queues s ON s.name = q.name
     WHERE mark.on = 'on' AND s.paused IS NOT TRUE),`
      : sql`
  -- The settings of the claimed queues. A capped queue's row is locked, and its count of slots
  -- taken read after the lock (FOR UPDATE returns the row's latest version): two workers
  -- cannot both take its last slot. Other queues' rows are only read.
  capped AS MATERIALIZED (
    SELECT name, concurrency_limit - leased AS free FROM mark, queues
     WHERE name = ANY(${ph("queues")}::text[]) AND concurrency_limit IS NOT NULL AND mark.on = 'on'
     ORDER BY name -- the supervisor's re-count locks them in this order too: no deadlock
     FOR UPDATE OF queues),
  open_queues AS MATERIALIZED (
    SELECT q.name, least(${ph("limit")}::int, greatest(coalesce(c.free, ${ph("limit")}::int), 0)) AS room
      FROM mark, unnest(${ph("queues")}::text[]) AS q(name)
      LEFT JOIN capped c ON c.name = q.name
     WHERE mark.on = 'on' AND NOT EXISTS (SELECT 1 FROM queues s WHERE s.name = q.name AND s.paused)),`;
  return sql`${queues}
  picked AS MATERIALIZED (
    SELECT p.id, p.queue, ${opts.startsAll ? sql`true` : sql`row_number() OVER (ORDER BY p.priority, p.fair_tag, p.not_before, p.id) <= ${ph("startNow")}::int`} AS starts
      FROM open_queues q, LATERAL (
        SELECT id, queue, priority, fair_tag, not_before FROM jobs_live
         WHERE state = 'queued' AND queue = q.name AND not_before <= ${at} AND attempt < max_attempts
           AND (${ph("only")}::uuid[] IS NULL OR id = ANY(${ph("only")}::uuid[]))
         ORDER BY priority, fair_tag, not_before, id
         LIMIT q.room
         FOR UPDATE SKIP LOCKED) p
     ORDER BY p.priority, p.fair_tag, p.not_before, p.id
     LIMIT ${ph("limit")}::int),
  ${claimedCte(ph, at, opts.startsAll === true)}${
    form === "lean"
      ? sql``
      : sql`,
  -- A capped queue counts the slots it gave out (the write path counts what comes back).
  ${opts.withReports ? tookWithReports : took}`
  }`;
}

type Ph = (name: string) => Placeholder;

/**
 * A lean claim from one queue (an unbatched worker's rounds): its jobs read straight from the claim
 * index in claim order, nothing to merge across queues, and its settings checked once. A paused
 * or capped queue gives nothing (CAPPED says which). The write-path mark is read before any row is
 * locked, so it is set when the UPDATE's guard trigger looks for it. Against the general lean claim
 * (the settings as a CTE joined to each queue's read, the queues' picks merged), 26–39 µs less
 * PostgreSQL CPU per one-job round with 24 in flight (docs/decisions.md, "One job per statement").
 */
function leanOneQueue(ph: Ph, at: SQL): SQL {
  const queue = sql`(${ph("queues")}::text[])[1]`;
  return sql`
  picked AS MATERIALIZED (
    SELECT id, queue, true AS starts FROM jobs_live
     WHERE state = 'queued' AND queue = ${queue} AND not_before <= ${at} AND attempt < max_attempts
       AND (${ph("only")}::uuid[] IS NULL OR id = ANY(${ph("only")}::uuid[]))
       AND (SELECT mark.on FROM mark) = 'on'
       AND NOT EXISTS (SELECT FROM queues s WHERE s.name = ${queue} AND (s.paused OR s.concurrency_limit IS NOT NULL))
     ORDER BY priority, fair_tag, not_before, id
     LIMIT ${ph("limit")}::int
     FOR UPDATE SKIP LOCKED)`;
}

/**
 * The UPDATE of the picked jobs: claimed (and started, the first `startNow`), leased, their attempt
 * opened. `startsAll`: each is started, written as such (a one-job round spent 7 µs less PostgreSQL
 * CPU without the CASEs on `starts`, 2026-12-05).
 */
function claimedCte(ph: Ph, at: SQL, startsAll: boolean): SQL {
  const starts = (then: SQL, otherwise: SQL | null) =>
    startsAll ? then : sql`CASE WHEN p.starts THEN ${then}${otherwise ? sql` ELSE ${otherwise}` : sql``} END`;
  return sql`claimed AS (
    UPDATE jobs_live l SET
      state = ${starts(sql.raw(`'${START!.to}'::job_state`), sql.raw(`'${CLAIM!.to}'::job_state`))},
      attempt = l.attempt + 1,
      state_version = l.state_version + ${starts(sql.raw("2"), sql.raw("1"))},
      lease_owner = ${ph("workerId")}::text, heartbeat_at = ${at},
      run_worker = ${ph("workerId")}::text, run_claimed_at = ${at}, run_started_at = ${starts(at, null)},
      run_version = l.state_version + 1, updated_at = ${at}
      FROM picked p
     WHERE l.id = p.id AND l.state = '${sql.raw(CLAIM!.from)}'::job_state
    RETURNING l.id, l.tenant_id, l.type, l.queue, l.priority, l.state, l.attempt, l.max_attempts, l.state_version, l.params, l.created_at)`;
}

/**
 * How a claim reads its queues' settings: `full` locks a capped queue's row and counts the slots it
 * gives out; `lean` reads every queue's settings once and gives a capped queue nothing (ClaimOptions
 * `lean`); `oneQueue` is a lean claim of a single queue that starts all it claims (`leanOneQueue`).
 */
export type ClaimForm = "full" | "lean" | "oneQueue";

export function claimForm(opts: ClaimOptions, startsAll: boolean): ClaimForm {
  if (opts.lean !== true) return "full";
  return startsAll && opts.queues.length === 1 ? "oneQueue" : "lean";
}

/** Whether a queue the claim read is capped: a lean claim gave it nothing, a full one counted its slots. */
export const CAPPED = (form: ClaimForm) =>
  form === "oneQueue"
    ? sql`EXISTS (SELECT FROM queues WHERE name = (${sql.placeholder("queues")}::text[])[1] AND concurrency_limit IS NOT NULL)`
    : form === "lean"
      ? sql`EXISTS (SELECT FROM open_queues WHERE capped)`
      : sql`EXISTS (SELECT FROM capped)`;

const took = sql`took AS (
    UPDATE queues s SET leased = s.leased + n.taken
      FROM (SELECT queue, count(*)::int AS taken FROM picked GROUP BY queue) n
     WHERE s.name = n.queue AND s.name IN (SELECT name FROM capped) AND EXISTS (SELECT FROM capped))`;

/**
 * A worker round that reports and claims in one statement (lib/jobs/round.ts) changes a capped
 * queue's count once, by what it gave out less what came back: a second UPDATE of the same queue
 * row in the statement (the write path's `freed`) would be lost, and the count would drift up until
 * the supervisor's re-count (tested in lib/jobs/queue-cap.test.ts).
 */
const tookWithReports = sql`took AS (
    UPDATE queues s SET leased = greatest(s.leased + n.delta, 0)
      FROM (SELECT queue, sum(d)::int AS delta FROM (
              SELECT queue, 1 AS d FROM picked
              UNION ALL
              SELECT queue, slot_delta FROM moved WHERE slot_delta <> 0) x
             GROUP BY queue) n
     WHERE s.name = n.queue AND s.concurrency_limit IS NOT NULL AND n.delta <> 0
       -- Implied by the line above, but a condition on nothing of the row: PostgreSQL checks it once,
       -- and with no capped queue skips the count of a round's picks and reports altogether.
       AND EXISTS (SELECT FROM queues c WHERE c.concurrency_limit IS NOT NULL))`;

/** The values of the claim's placeholders. */
export function claimValues(opts: ClaimOptions): Record<string, unknown> {
  return {
    startNow: Math.max(0, Math.min(opts.limit, Math.floor(opts.startNow ?? 0))),
    queues: opts.queues,
    claimAt: opts.at ?? null,
    only: opts.onlyJobIds ?? null,
    limit: opts.limit,
    workerId: opts.workerId,
  };
}

/**
 * Claim up to `limit` due jobs in one autocommit statement (the direct-write mark travels in it):
 * one round trip on the pickup path.
 */
export async function claim(client: Db, opts: ClaimOptions): Promise<ClaimedJob[]> {
  if (opts.limit < 1 || opts.queues.length === 0) return [];
  const statement = prepared<ClaimedJob>(
    client,
    "jobscope_claim",
    () => sql`WITH ${markCte}, ${claimCtes()} SELECT ${CLAIMED_COLUMNS} FROM claimed ORDER BY priority, id`,
  );
  return statement(claimValues(opts));
}

// The design's ceiling on this machine: Jobscope's own tables and indexes, written by
// one hand-written statement per round, with none of what the product adds around them. Its rate
// next to graphile-worker's, in the same run, bounds what any runtime or statement builder could
// reach with this data model here. Not product code: it skips the direct-write guard and the tenant
// check (`session_replication_role = replica` turns the tables' triggers off), runs no handlers and
// keeps no handler slots, and finishes every job it claims. One at a time (`perStatement: 1`), one
// such statement per job from as many pipelines as the runtime's slots, pipelined on as many
// connections as an unbatched worker's (lib/db/lanes.ts), its values as scalars and its plan made
// once per connection (generic), as the worker's one-job statement.
import { closeDb, connect } from "../lib/db/client";
import { shapeOf } from "../lib/jobs/shape";
import { BENCH_QUEUE, burnJobs, measure, type Burn } from "./engines";
import { sql } from "drizzle-orm";
import { arrayLiteral, prepared } from "../lib/db/drizzle";
import { triggersOff } from "./lib";

// The moves it applies, from the transition table (lib/fsm/table.ts) like the worker's own: claim
// and start in one write, then the finish that closes the attempt and ends the job.
const CLAIM = shapeOf("queued", "claim", "worker");
const START = CLAIM && shapeOf(CLAIM.to, "start", "worker");
const FINISH = START && shapeOf(START.to, "finish", "worker");
if (!CLAIM || !START || !FINISH?.closes || !FINISH.toDone)
  throw new Error("the transition table has no worker claim → start → finish that ends the job");
// As literals in the statement's text, not parameters: a generic plan (one job per statement)
// reads the claim index, whose predicate is `state = 'queued'`, only for a literal state.
const [QUEUED, RUNNING, DONE, OUTCOME, FINISHED] = [CLAIM.from, START.to, FINISH.to, FINISH.closes, FINISH.event].map((x) => sql.raw(`'${x}'`));

export async function burnSkeleton(
  url: string,
  n: number,
  label: string,
  /** `connections`: the pool's size (default one per pipeline); fewer, and postgres.js pipelines the statements on them. */
  opts: { perStatement: number; pipelines: number; connections?: number } = { perStatement: 500, pipelines: 2 },
): Promise<Burn> {
  const { perStatement, pipelines } = opts;
  const replica = new URL(triggersOff(url));
  const one = perStatement === 1;
  // One job per statement: planned once per connection, as the worker's statements are (planned on
  // each call, a plan cost 0.65–0.9 ms of ~1.4 ms per job). A batch: planned for its arrays on each
  // call (a generic plan of the unnest join hashes every leased row; PostgreSQL's own choice
  // switched to it once the states were literals, and the batched skeleton read half its rate).
  replica.searchParams.set("plan_cache_mode", one ? "force_generic_plan" : "force_custom_plan");
  const db = connect(replica.toString(), { max: opts.connections ?? pipelines + 1, appName: "bench-skeleton" });
  const { all } = burnJobs(n);
  // The finish (DELETE of the live row, INSERT of its attempt row with the same columns the write
  // path fills) and the next claim (the claim index read with SKIP LOCKED, the live row's UPDATE:
  // claim and start in one write), in one autocommit statement per round, prepared once per
  // connection like the runtime's (a round's size is in its text, so each plan is made for it).
  // One job per statement: its report as scalars, the finished job found by `id = $1` and guarded
  // by a one-row CTE's values, as the worker's. (A generic plan of the arrays' join hashed every
  // leased row; with the guard's values as the DELETE's own conditions, it read every leased row
  // through the lease index, whose predicate they imply.)
  const finished = one
    ? sql`DELETE FROM jobs_live l USING i1 i
       WHERE l.id = ${sql.placeholder("ids")}::uuid AND l.id = i.id AND l.attempt = i.attempt AND l.state_version = i.v AND l.state = i.state AND l.lease_owner = i.owner`
    : sql`DELETE FROM jobs_live l USING unnest(${sql.placeholder("ids")}::uuid[], ${sql.placeholder("attempts")}::int[], ${sql.placeholder("versions")}::int[]) AS i(id, attempt, v)
       WHERE l.id = i.id AND l.attempt = i.attempt AND l.state_version = i.v AND l.state = ${RUNNING}::job_state AND l.lease_owner = 'skeleton'`;
  const round = (ids: string[], attempts: number[], versions: number[]) =>
    prepared<{ id: string | null; attempt: number; v: number | null }>(
      db,
      `skeleton_round_${perStatement}`,
      () => sql`
    WITH ${one ? sql`i1 AS MATERIALIZED (SELECT ${sql.placeholder("ids")}::uuid AS id, ${sql.placeholder("attempts")}::int AS attempt, ${sql.placeholder("versions")}::int AS v, ${RUNNING}::job_state AS state, 'skeleton' AS owner), ` : sql``}f AS (
      ${finished}
      RETURNING l.*
    ), a AS (
      INSERT INTO job_attempts (job_id, attempt, tenant_id, worker_id, claimed_at, claim_version, started_at, finished_at, outcome,
                                max_attempts, end_event, end_from, end_to, end_version)
      SELECT id, attempt, tenant_id, run_worker, run_claimed_at, run_version, run_started_at, now(), ${OUTCOME}::run_outcome, max_attempts,
             ${FINISHED}::job_event, ${RUNNING}::job_state, ${DONE}::job_state, state_version + 1 FROM f
    ), p AS (
      SELECT id FROM jobs_live
       WHERE state = ${QUEUED}::job_state AND queue = ${BENCH_QUEUE} AND not_before <= now() AND attempt < max_attempts
       ORDER BY priority, fair_tag, not_before, id LIMIT ${sql.raw(String(perStatement))} FOR UPDATE SKIP LOCKED
    ), c AS (
      UPDATE jobs_live l SET state = ${RUNNING}::job_state, attempt = l.attempt + 1, state_version = l.state_version + 2, lease_owner = 'skeleton',
             heartbeat_at = now(), run_worker = 'skeleton', run_claimed_at = now(), run_started_at = now(), run_version = l.state_version + 1,
             updated_at = now()
        FROM p WHERE l.id = p.id AND l.state = ${QUEUED}::job_state
      -- What a claim hands a worker, sent back as the runtime's claim does (only three are used here).
      RETURNING l.id, l.attempt, l.state_version, l.tenant_id, l.type, l.params
    )
    SELECT id, attempt, state_version AS v FROM c
    UNION ALL SELECT NULL, (SELECT count(*)::int FROM f), NULL`,
    )(
      one
        ? { ids: ids[0] ?? null, attempts: attempts[0] ?? null, versions: versions[0] ?? null }
        : { ids: arrayLiteral(ids), attempts: arrayLiteral(attempts), versions: arrayLiteral(versions) },
    );
  let done = 0;
  const leased: { id: string; attempt: number; v: number }[] = [];
  // `pipelines` statements in flight, each reporting what waits and claiming a round's worth: as
  // many claims in flight as the runtime keeps, so that this reads the tables' ceiling.
  let deadlocks = 0;
  const pipeline = async () => {
    // One job per statement: each connection reports the job its last statement claimed, as a
    // worker's slot does.
    const own: typeof leased = [];
    const pool = one ? own : leased;
    while (done < all) {
      const reports = pool.splice(0, perStatement);
      let rows;
      try {
        rows = await round(
          reports.map((r) => r.id),
          reports.map((r) => r.attempt),
          reports.map((r) => r.v),
        );
      } catch (e) {
        // One job per statement on 24 connections, claims that follow a just-claimed job to its new
        // version can wait on each other's finishes: PostgreSQL rolls one statement back. Its
        // reports are sent again, as a runtime would; the count is printed with the burn.
        if ((e as { code?: string }).code !== "40P01") throw e;
        deadlocks++;
        pool.push(...reports);
        continue;
      }
      for (const r of rows) {
        if (r.id === null) done += r.attempt;
        else pool.push({ id: r.id, attempt: r.attempt, v: r.v! });
      }
      if (reports.length === 0 && rows.length === 1) await new Promise((r) => setTimeout(r, 1));
    }
  };
  let running: Promise<unknown> = Promise.resolve();
  return measure(
    url,
    label,
    n,
    {
      start: async () => void (running = Promise.all(Array.from({ length: pipelines }, pipeline))),
      finished: async () => done,
      async stop() {
        await running;
        await closeDb(db);
      },
    },
    async () =>
      `${all} run records, no transition log rows (triggers off)${deadlocks ? `; ${deadlocks} statements sent again after a deadlock` : ""}`,
  );
}

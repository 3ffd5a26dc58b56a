import { canApply, findTransition, mayApply } from "../fsm/machine";
import { HEARTBEAT_STATES, type JobEvent, type JobState } from "../fsm/table";
import type { Db } from "../db/client";
import { ensureEventPartitions } from "../db/partitions";
import { blameOf, bystanderError, crashBackoffMs, crashError, POISON_CRASHES, WORKER_LOST_CLASS as WORKER_LOST, type Victim } from "../jobs/poison";
import { crashHistory, earlierVictims } from "./crashes";
import { reconcileQueueCounts } from "../jobs/queues";
import { rollUpMetrics } from "../metrics/rollup";
import { evaluateAlerts } from "../alerts/evaluate";
import { runDueSchedules } from "../schedules/fire";
import { transition } from "../jobs/transition";
import type { Actor } from "../jobs/types";
import { backoffDelay, DB_RETRY } from "../worker/backoff";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/** What the supervisor may do to a job whose heartbeat went stale, in order of preference: a bystander of another job's crash, the job blamed for it. */
const BYSTANDER_RECOVERY: readonly JobEvent[] = ["rescue", "reclaim", "abandon"];
const RECOVERY: readonly JobEvent[] = ["reclaim", "abandon"];
const promote = findTransition("retry_wait", "retry");
if (!promote || !mayApply("retry_wait", "retry", "supervisor")) {
  throw new Error("the table lets no supervisor retry a retry_wait job");
}
const PROMOTE = promote;

export type SupervisorOptions = {
  db: Db;
  id?: string;
  /** A lease whose heartbeat is older than this is presumed dead. A few heartbeat intervals. */
  staleAfterMs?: number;
  intervalMs?: number;
  batch?: number;
  /** The crash blamed on a job that makes this many is not reclaimed but abandoned as a poison job (lib/jobs/poison.ts). */
  poisonCrashes?: number;
  /** The job blamed for a crash is handed out again after this, doubling with each crash blamed on it (default: staleAfterMs). */
  crashBackoffMs?: number;
  /** How often the running loop rolls the history up into GET /metrics' counters (lib/metrics/rollup.ts; default 15 s; 0: never). */
  metricsEveryMs?: number;
  /** How often the running loop evaluates the alert rules (lib/alerts/evaluate.ts; default 5 s; 0: never). */
  alertsEveryMs?: number;
  /** How often the running loop makes sure the next days' job_events partitions exist (default hourly; 0: never). */
  partitionsEveryMs?: number;
  log?: (line: string) => void;
};

export type TickReport = {
  reclaimed: number;
  abandoned: number;
  promoted: number;
  refused: number;
  /** Of `abandoned`: stopped as poison jobs. */
  poisoned: number;
  /** Bystanders of another job's crash, handed back with their attempt refunded. */
  rescued: number;
  /** Capped queues whose count of leased jobs was corrected. */
  recounted: number;
  /** Schedule ticks submitted as jobs. */
  scheduled: number;
};

type Candidate = { id: string; state: JobState; stateVersion: number; attempt: number; maxAttempts: number };
type Stale = Candidate & { leaseOwner: string; type: string; startedAt: Date };

export function createSupervisor(opts: SupervisorOptions) {
  const db = opts.db;
  const actor: Actor = { kind: "supervisor", id: opts.id ?? `sup-${process.pid}` };
  const staleAfterMs = opts.staleAfterMs ?? 10_000;
  const batch = opts.batch ?? 200;
  const poisonAt = opts.poisonCrashes ?? POISON_CRASHES;
  const crashBackoffBaseMs = opts.crashBackoffMs ?? staleAfterMs;
  const log = opts.log ?? (() => {});
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();

  /**
   * Recover every job whose lease went stale. The jobs a dead worker took down are its victims: one
   * is blamed for the crash, the rest are bystanders, handed back with their attempt refunded
   * (lib/jobs/poison.ts). The blamed job is reclaimed (or, on its last attempt, abandoned), and the
   * crash that makes POISON_CRASHES stops it as a poison job.
   */
  async function recoverStale(report: TickReport) {
    // The database's clock decides staleness, the same clock heartbeats write.
    const [{ cutoff } = { cutoff: new Date(0) }] = await execute<{ cutoff: Date }>(
      db,
      sql`
      SELECT now() - ${staleAfterMs} * interval '1 millisecond' AS cutoff`,
    );
    const stale = await execute<Stale>(
      db,
      sql`
      SELECT id, state, state_version, attempt, max_attempts, lease_owner, type, coalesce(run_started_at, run_claimed_at) AS started_at
        FROM jobs_live
       WHERE state = ANY(${sql.param(HEARTBEAT_STATES)}::job_state[]) AND heartbeat_at < ${cutoff}
       ORDER BY heartbeat_at LIMIT ${batch}`,
    );
    if (stale.length === 0) return;
    const owners = [...new Set(stale.map((j) => j.leaseOwner))];
    const earlier = await earlierVictims(db, owners);
    // The dead worker's other leases are its victims too, though not stale yet: a job it claimed just
    // before it died has a fresher heartbeat (the claim's) and goes stale a tick or two later, and the
    // blame must be decided knowing it is there (one heartbeat statement beats all of a worker's leases,
    // so a worker with a stale lease has stopped beating them all).
    const staleIds = new Set(stale.map((j) => j.id));
    const fresher = (
      await execute<{ id: string; leaseOwner: string; type: string; startedAt: Date }>(
        db,
        sql`
        SELECT id, lease_owner, type, coalesce(run_started_at, run_claimed_at) AS started_at FROM jobs_live
         WHERE lease_owner = ANY(${sql.param(owners)}::text[]) AND state = ANY(${sql.param(HEARTBEAT_STATES)}::job_state[])`,
      )
    ).filter((j) => !staleIds.has(j.id));
    const history = await crashHistory(db, [...new Set([...staleIds, ...fresher.map((j) => j.id), ...earlier.map((v) => v.jobId)])]);
    const blamed = new Map<string, Victim | null>();
    for (const owner of owners) {
      const victims: Victim[] = [
        ...earlier
          .filter((v) => v.workerId === owner)
          .map((v) => ({
            jobId: v.jobId,
            type: v.type,
            startedAt: v.startedAt.getTime(),
            deaths: history.get(v.jobId)?.deaths ?? 1,
            crashes: history.get(v.jobId)?.crashes ?? 0,
            blamed: v.errorClass !== WORKER_LOST,
          })),
        // Its leases, stale or not yet: each dies with this worker now.
        ...[...stale, ...fresher]
          .filter((j) => j.leaseOwner === owner)
          .map((j) => ({
            jobId: j.id,
            type: j.type,
            startedAt: j.startedAt.getTime(),
            deaths: (history.get(j.id)?.deaths ?? 0) + 1,
            crashes: history.get(j.id)?.crashes ?? 0,
            blamed: false,
          })),
      ];
      blamed.set(owner, blameOf(victims));
    }
    const notStaleYet = new Set(fresher.map((j) => j.id));
    // The job blamed is recovered before its bystanders, whose recoveries name it: a worker that was
    // only stopped may beat its leases again between two of these writes, and then the job blamed is
    // refused (it did not die), and nothing else of that worker is recovered this tick.
    const isCulprit = (j: Stale) => blamed.get(j.leaseOwner)?.jobId === j.id;
    const unsettled = new Set<string>();
    for (const job of [...stale.filter(isCulprit), ...stale.filter((j) => !isCulprit(j))]) {
      if (unsettled.has(job.leaseOwner)) continue;
      const culprit = blamed.get(job.leaseOwner) ?? null;
      // The blame fell on a lease of this worker that is not stale yet: nothing of this worker is
      // recovered until it is. A dead worker's lease goes stale within a tick or two, and the crash is
      // then decided with it among the dead; a worker that was only stopped renews every lease it
      // holds with its next heartbeat, and the job blamed would have been blamed for a crash that
      // did not happen.
      if (culprit && notStaleYet.has(culprit.jobId)) continue;
      const bystander = culprit !== null && culprit.jobId !== job.id;
      const crashes = (history.get(job.id)?.crashes ?? 0) + 1;
      const poison = !bystander && crashes >= poisonAt && canApply(job, "abandon", actor.kind);
      const event = poison ? "abandon" : (bystander ? BYSTANDER_RECOVERY : RECOVERY).find((e) => canApply(job, e, actor.kind));
      if (!event) continue;
      const error = bystander ? bystanderError(job.leaseOwner, culprit, event === "rescue") : crashError(crashes, staleAfterMs, poison);
      // The job blamed is handed out again after its crash backoff, on the database's clock as the
      // claim reads it (the cutoff is its now() less the threshold).
      const heldUntil = event === "reclaim" ? new Date(cutoff.getTime() + staleAfterMs + crashBackoffMs(crashes, crashBackoffBaseMs)) : null;
      const r = await transition(db, {
        jobId: job.id,
        event,
        actor,
        expected: { state: job.state, version: job.stateVersion },
        staleBefore: cutoff,
        error,
        ...(heldUntil && { retryAt: heldUntil }),
        // Who the crash is blamed on, and how long the job blamed is held back, for the job's explanation and the overview's suspects.
        payload: {
          crash: {
            worker: job.leaseOwner,
            blamed: bystander ? { jobId: culprit.jobId, type: culprit.type } : null,
            crashes: bystander ? null : crashes,
            ...(heldUntil && { heldUntil: heldUntil.toISOString() }),
          },
        },
      });
      if (!r.ok) {
        report.refused++;
        if (!bystander) unsettled.add(job.leaseOwner);
      } else if (event === "rescue") report.rescued++;
      else if (event === "reclaim") report.reclaimed++;
      else report.abandoned++;
      if (r.ok && poison) report.poisoned++;
      if (r.ok)
        log(
          `${poison ? "abandon (poison job)" : event} ${job.id} (attempt ${job.attempt}, was ${job.state}${bystander ? `, its worker's crash blamed on ${culprit.jobId}` : ""})`,
        );
    }
  }

  /** Move retry_wait jobs whose backoff has passed back to queued. */
  async function promoteDue(report: TickReport) {
    const due = await execute<Candidate>(
      db,
      sql`
      SELECT id, state, state_version, attempt, max_attempts FROM jobs_live
       WHERE state = ${PROMOTE.from} AND not_before <= now() ORDER BY not_before LIMIT ${batch}`,
    );
    for (const job of due) {
      const r = await transition(db, {
        jobId: job.id,
        event: PROMOTE.event,
        actor,
        expected: { state: job.state, version: job.stateVersion },
      });
      if (r.ok) report.promoted++;
      else report.refused++;
    }
  }

  async function tick(): Promise<TickReport> {
    const report: TickReport = { reclaimed: 0, abandoned: 0, promoted: 0, refused: 0, poisoned: 0, rescued: 0, recounted: 0, scheduled: 0 };
    await recoverStale(report);
    await promoteDue(report);
    // Capped queues: their count of leased jobs, re-counted from the live rows (lib/jobs/queues.ts).
    report.recounted = await reconcileQueueCounts(db);
    // Periodic schedules: the ticks that have come, one job each (lib/schedules/fire.ts).
    report.scheduled = (await runDueSchedules(db, { supervisorId: actor.id, log })).fired;
    return report;
  }

  /**
   * A chore beside the tick, at most once per `everyMs` (0: never): a failure is logged and
   * retried on the next interval.
   */
  function periodically(everyMs: number, what: string, chore: () => Promise<unknown>) {
    let dueAt = 0;
    return async () => {
      if (everyMs <= 0 || Date.now() < dueAt) return;
      dueAt = Date.now() + everyMs;
      try {
        await chore();
      } catch (e) {
        log(`could not ${what}: ${e instanceof Error ? e.message : String(e)}`);
      }
    };
  }
  // Keep the coming days' event partitions created (drizzle/0009_partition_events.sql). A failure
  // (e.g. lock timeout) does no harm meanwhile: a week of days is created ahead, and events outside
  // any day land in the DEFAULT partition.
  const keepPartitions = periodically(opts.partitionsEveryMs ?? 3_600_000, "create job_events partitions", async () => {
    const created = await ensureEventPartitions(db);
    if (created > 0) log(`created ${created} job_events partition(s)`);
  });
  // The metrics' roll-up: after a failure the cursor did not move, so nothing is lost or counted twice.
  const keepMetrics = periodically(opts.metricsEveryMs ?? 15_000, "roll up the metrics", () => rollUpMetrics(db));
  // Alert rules: each rule's evaluation commits with its alert (or not at all).
  const keepAlerts = periodically(opts.alertsEveryMs ?? 5_000, "evaluate the alert rules", async () => {
    const r = await evaluateAlerts(db);
    if (r.alerts > 0) log(`sent ${r.alerts} alert(s)`);
  });
  // Consecutive failed ticks: while the database is unreachable the supervisor
  // backs off (DB_RETRY: 250 ms doubling to 30 s) instead of hammering it, and
  // the pool reconnects on the first tick that gets through.
  let failures = 0;
  function loop() {
    running = keepPartitions()
      .then(keepMetrics)
      .then(keepAlerts)
      .then(tick)
      .then(() => {
        if (failures > 0) log(`database reachable again after ${failures} failed tick(s)`);
        failures = 0;
      })
      .catch((e: unknown) => {
        failures++;
        log(`tick failed (${failures} in a row): ${e instanceof Error ? e.message : String(e)}`);
      })
      .finally(() => {
        const delay = failures > 0 ? Math.max(opts.intervalMs ?? 1000, backoffDelay(failures, DB_RETRY)) : (opts.intervalMs ?? 1000);
        if (timer !== null) timer = setTimeout(loop, delay);
      });
  }

  return {
    id: actor.id,
    tick,
    start() {
      timer = setTimeout(loop, 0);
    },
    async stop() {
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}

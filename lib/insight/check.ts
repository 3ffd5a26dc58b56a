import type { Db } from "../db/client";
import { isRescheduling } from "../fsm/machine";
import { TERMINAL_STATES, type ActorKind, type JobEvent, type JobState, type RunOutcome } from "../fsm/table";
import { sizeParamOf } from "../jobs/job-types";
import { CRASH_WINDOW_MS, heldUntilOf, outranks, POISON_CRASHES, POISON_ERROR_CLASS, REPEAT_CRASHES, WORKER_LOST_CLASS } from "../jobs/poison";
import { PHASES, type CauseKind, type Claim, type ClaimOf, type Explanation, type Phase } from "./claims";
import { mayLead, PEOPLE } from "./explain";
import { AHEAD_SCAN, BASELINE_SAMPLE, BASELINE_SCAN } from "./context";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * The claim checker: every claim of an explanation (lib/insight/claims.ts) verified against the
 * database with queries of its own — not the explainer's reads (lib/insight/context.ts), nor its
 * timeline (lib/jobs/timeline.ts). It reads the storage tables (job_catalog, jobs_live,
 * job_attempts, job_log, queue_events, workers) directly and rebuilds what it needs. A claim is
 * false when the data says otherwise: a "beyond p95" whose value does not exceed the p95 it quotes,
 * a pause "from … to" that had not ended, "no worker served the queue" while a job of it was claimed,
 * a lead that is not the largest cause (or not the decision a person made, or not why a dead job
 * failed).
 *
 * Slow by design (it reads whole histories): for tests and `npm run check:explanations`, never a page.
 */

export type Violation = { jobId: string; claim: Claim["kind"] | "lead" | "poison"; why: string };

type Catalog = {
  id: string;
  type: string;
  queue: string;
  tenantId: string;
  priority: number;
  createdAt: Date;
  notBefore: Date;
  params: unknown;
  maxAttempts: number;
};
type Live = {
  state: JobState;
  attempt: number;
  maxAttempts: number;
  leaseOwner: string | null;
  runWorker: string | null;
  runClaimedAt: Date | null;
  runStartedAt: Date | null;
  runVersion: number | null;
};
type Attempt = {
  attempt: number;
  workerId: string;
  claimedAt: Date;
  claimVersion: number;
  startedAt: Date | null;
  finishedAt: Date;
  outcome: RunOutcome;
  endEvent: JobEvent | null;
  endFrom: JobState | null;
  endTo: JobState | null;
  endVersion: number | null;
  errorClass: string | null;
  errorMessage: string | null;
  maxAttempts: number;
};
type Logged = {
  event: JobEvent;
  fromState: JobState;
  toState: JobState;
  actorKind: ActorKind;
  actorId: string;
  attempt: number;
  stateVersion: number;
  at: Date;
  payload: Record<string, unknown> | null;
  maxAttempts: number;
};
type Ev = { event: JobEvent; to: JobState; attempt: number; version: number; at: number };

const TERMINAL = new Set<JobState>(TERMINAL_STATES);
/** Milliseconds of slack for a duration added up from several timestamps (the database keeps microseconds). */
const SLACK = 3;

export type Facts = { catalog: Catalog; live: Live | null; attempts: Attempt[]; log: Logged[] };

export async function readFacts(db: Db, jobId: string): Promise<Facts | null> {
  const [catalog] = await execute<Catalog>(
    db,
    sql`
    SELECT id, type, queue, tenant_id, priority, created_at, not_before, params, max_attempts FROM job_catalog WHERE id = ${jobId}`,
  );
  if (!catalog) return null;
  const [[live], attempts, log] = await Promise.all([
    execute<Live>(
      db,
      sql`SELECT state, attempt, max_attempts, lease_owner, run_worker, run_claimed_at, run_started_at, run_version FROM jobs_live WHERE id = ${jobId}`,
    ),
    execute<Attempt>(
      db,
      sql`
      SELECT attempt, worker_id, claimed_at, claim_version, started_at, finished_at, outcome, end_event, end_from, end_to, end_version,
             error_class, error_message, max_attempts
        FROM job_attempts WHERE job_id = ${jobId} ORDER BY attempt`,
    ),
    execute<Logged>(
      db,
      sql`
      SELECT event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, payload, max_attempts
        FROM job_log WHERE job_id = ${jobId} AND at >= ${catalog.createdAt} ORDER BY state_version`,
    ),
  ]);
  return { catalog, live: live ?? null, attempts, log };
}

/** Every transition of the job, rebuilt from where each is stored. */
function eventsOf(f: Facts): Ev[] {
  const out: Ev[] = [{ event: "submit", to: "queued", attempt: 0, version: 0, at: f.catalog.createdAt.getTime() }];
  for (const a of f.attempts) {
    out.push({ event: "claim", to: "claimed", attempt: a.attempt, version: a.claimVersion, at: a.claimedAt.getTime() });
    if (a.startedAt) out.push({ event: "start", to: "running", attempt: a.attempt, version: a.claimVersion + 1, at: a.startedAt.getTime() });
    if (a.endEvent && a.endTo && a.endVersion !== null)
      out.push({ event: a.endEvent, to: a.endTo, attempt: a.attempt, version: a.endVersion, at: a.finishedAt.getTime() });
  }
  if (f.live?.leaseOwner && f.live.runVersion !== null && f.live.runClaimedAt) {
    out.push({ event: "claim", to: "claimed", attempt: f.live.attempt, version: f.live.runVersion, at: f.live.runClaimedAt.getTime() });
    if (f.live.runStartedAt)
      out.push({ event: "start", to: "running", attempt: f.live.attempt, version: f.live.runVersion + 1, at: f.live.runStartedAt.getTime() });
  }
  for (const e of f.log) out.push({ event: e.event, to: e.toState, attempt: e.attempt, version: e.stateVersion, at: e.at.getTime() });
  return out.sort((a, b) => a.version - b.version);
}

type Seg = { state: JobState; attempt: number; from: number; to: number; startEvent: JobEvent };

/** Stretches between transitions, named by the state the job was in; the last runs to `asOf` while the job is not finished. */
function segmentsOf(evs: readonly Ev[], asOf: number): Seg[] {
  const out: Seg[] = [];
  evs.forEach((e, i) => {
    const next = evs[i + 1];
    if (next) out.push({ state: e.to, attempt: e.attempt, from: e.at, to: Math.max(e.at, next.at), startEvent: e.event });
    else if (!TERMINAL.has(e.to)) out.push({ state: e.to, attempt: e.attempt, from: e.at, to: Math.max(e.at, asOf), startEvent: e.event });
  });
  return out;
}

function phasesOf(
  f: Facts,
  segs: readonly Seg[],
  evs: readonly Ev[],
): { phases: Record<Phase, number>; lostOf: Map<number, number>; waits: Seg[]; heldAfter: Map<number, number> } {
  const outcome = new Map(f.attempts.map((a) => [a.attempt, a.outcome]));
  const phases = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
  const lostOf = new Map<number, number>();
  const rescheduled = evs.some((e) => isRescheduling(e.event));
  const waits: Seg[] = [];
  // A reclaimed job's crash backoff: until its reclaim's recorded heldUntil, a backoff, not a wait for a worker.
  const heldAfter = new Map<number, number>();
  for (const s of segs) {
    const ms = s.to - s.from;
    const lost = outcome.get(s.attempt) === "lease_expired";
    switch (s.state) {
      case "queued": {
        const scheduled = s.startEvent === "submit" && !rescheduled ? Math.min(ms, Math.max(0, f.catalog.notBefore.getTime() - s.from)) : 0;
        const until = s.startEvent === "reclaim" ? heldUntilOf(f.log.find((e) => e.event === "reclaim" && e.attempt === s.attempt)?.payload) : null;
        const held = until === null ? 0 : Math.min(ms, Math.max(0, until - s.from));
        if (held > 0) heldAfter.set(s.attempt, held);
        phases.scheduled += scheduled;
        phases.retry_backoff += held;
        phases.queue_wait += ms - scheduled - held;
        if (ms > scheduled + held) waits.push({ ...s, from: s.from + scheduled + held });
        break;
      }
      case "claimed":
      case "running":
      case "cancelling":
        if (lost) {
          phases.lost_to_lease += ms;
          lostOf.set(s.attempt, (lostOf.get(s.attempt) ?? 0) + ms);
        } else phases[s.state === "claimed" ? "claimed" : "running"] += ms;
        break;
      case "paused":
        phases.paused += ms;
        break;
      case "retry_wait":
        phases.retry_backoff += ms;
        break;
      case "dead":
        phases.dead += ms;
        break;
      default:
        break;
    }
  }
  return { phases, lostOf, waits, heldAfter };
}

export async function checkExplanation(db: Db, jobId: string, ex: Explanation, facts?: Facts | null): Promise<Violation[]> {
  const f = facts ?? (await readFacts(db, jobId));
  if (!f) return [{ jobId, claim: "lead", why: "no such job" }];
  const out: Violation[] = [];
  const bad = (claim: Violation["claim"], why: string) => out.push({ jobId, claim, why });
  const evs = eventsOf(f);
  const segs = segmentsOf(evs, ex.asOf);
  const { phases, lostOf, waits, heldAfter } = phasesOf(f, segs, evs);
  const state: JobState = f.live?.state ?? evs.at(-1)!.to;
  const waitSpans = waits.map((w) => ({ from: w.from, to: w.to }));

  for (const c of ex.claims) {
    switch (c.kind) {
      case "phase":
        if (!ex.isTruncated && Math.abs(phases[c.phase] - c.ms) > SLACK * segs.length)
          bad(c.kind, `${c.phase} is ${phases[c.phase]} ms in the job's history, not ${c.ms}`);
        break;
      case "scheduled":
        if (Math.abs(f.catalog.notBefore.getTime() - c.until) > 1)
          bad(c.kind, `it was submitted to run at ${f.catalog.notBefore.toISOString()}, not ${new Date(c.until).toISOString()}`);
        if (c.ms > c.until - f.catalog.createdAt.getTime() + 1) bad(c.kind, "the scheduled delay is longer than submit to its time");
        break;
      case "failures": {
        const failed = f.attempts.filter((a) => a.outcome === "failed");
        if (failed.length !== c.failed) bad(c.kind, `${failed.length} attempts failed, not ${c.failed}`);
        const attempts = f.attempts.length + (f.live?.leaseOwner ? 1 : 0);
        if (attempts !== c.attempts) bad(c.kind, `${attempts} attempts, not ${c.attempts}`);
        const classes = new Map<string, number>();
        for (const a of failed) classes.set(a.errorClass ?? "unknown error", (classes.get(a.errorClass ?? "unknown error") ?? 0) + 1);
        for (const b of c.byClass)
          if (classes.get(b.errorClass) !== b.n) bad(c.kind, `${classes.get(b.errorClass) ?? 0} failures of class ${b.errorClass}, not ${b.n}`);
        const last = f.attempts.at(-1);
        if (c.last && (!last || last.attempt !== c.last.attempt || last.outcome !== c.last.outcome || last.errorClass !== c.last.errorClass)) {
          bad(c.kind, `the last ended attempt is ${last ? `${last.attempt} (${last.outcome}, ${last.errorClass})` : "none"}`);
        }
        const max = f.live?.maxAttempts ?? f.attempts.at(-1)?.maxAttempts ?? f.catalog.maxAttempts;
        const lastLog = f.log.at(-1);
        const budget = lastLog && lastLog.stateVersion > (f.attempts.at(-1)?.endVersion ?? -1) ? lastLog.maxAttempts : max;
        if (budget !== c.maxAttempts) bad(c.kind, `its attempt budget is ${budget}, not ${c.maxAttempts}`);
        const deadBy = state === "dead" ? [...evs].reverse().find((e) => e.to === "dead") : undefined;
        const byWorker = deadBy !== undefined && f.attempts.some((a) => a.endTo === "dead" && a.endVersion === deadBy.version);
        if (c.endedIt !== byWorker) bad(c.kind, `a worker ${byWorker ? "did" : "did not"} give it up`);
        break;
      }
      case "decision": {
        const e = f.log.find((x) => x.event === c.event && x.at.getTime() === c.at && x.actorId === c.by.id && x.actorKind === c.by.kind);
        if (!e) {
          bad(c.kind, `no ${c.event} by ${c.by.kind} ${c.by.id} at ${new Date(c.at).toISOString()} in its log`);
          break;
        }
        if (e.fromState !== c.from) bad(c.kind, `the ${c.event} was from ${e.fromState}, not ${c.from}`);
        if (e.attempt !== c.attempt || e.maxAttempts !== c.maxAttempts)
          bad(c.kind, `attempt ${e.attempt} of ${e.maxAttempts}, not ${c.attempt} of ${c.maxAttempts}`);
        if (c.ended) {
          const a = f.attempts.find((x) => x.attempt === c.ended!.attempt);
          if (!a || a.outcome !== c.ended.outcome || a.errorClass !== c.ended.errorClass)
            bad(c.kind, `attempt ${c.ended.attempt} did not end ${c.ended.outcome} (${c.ended.errorClass})`);
        }
        if (c.event === "replay") {
          // What ended the job: the move just before the replay, when a person's, named as it is logged.
          const k = f.log.find((x) => x.stateVersion === e.stateVersion - 1 && PEOPLE.has(x.actorKind));
          const by = c.endedBy ?? null;
          // A truncated history may have loaded the replay without the move before it.
          if (!k !== !by && !(k && ex.isTruncated))
            bad(c.kind, k ? `it leaves out the ${k.event} by ${k.actorKind} ${k.actorId} that ended the job` : "no person ended the job before it");
          else if (
            k &&
            by &&
            (k.event !== by.event || k.actorKind !== by.by.kind || k.actorId !== by.by.id || k.at.getTime() !== by.at || k.fromState !== by.from)
          )
            bad(c.kind, `the move before it was a ${k.event} by ${k.actorKind} ${k.actorId}, not a ${by.event} by ${by.by.kind} ${by.by.id}`);
        }
        break;
      }
      case "crashed_workers": {
        const crashes = f.attempts.filter((a) => a.outcome === "lease_expired" && a.errorClass !== WORKER_LOST_CLASS).length;
        if (crashes !== c.crashes) bad(c.kind, `${crashes} worker deaths are blamed on it, not ${c.crashes}`);
        const poison = f.attempts.at(-1)?.errorClass === POISON_ERROR_CLASS;
        if (poison !== c.poison) bad(c.kind, `it ${poison ? "is" : "is not"} dead as a poison job`);
        if (c.tookDown !== null) {
          const [row] = await execute<{ n: number }>(
            db,
            sql`
            SELECT count(*)::int AS n FROM job_log WHERE actor_kind = 'supervisor' AND payload->'crash'->'blamed'->>'jobId' = ${jobId}`,
          );
          if ((row?.n ?? 0) !== c.tookDown) bad(c.kind, `${row?.n ?? 0} other jobs' recoveries name it as the crash, not ${c.tookDown}`);
        }
        break;
      }
      case "lost_attempt": {
        const a = f.attempts.find((x) => x.attempt === c.attempt);
        if (!a || a.outcome !== "lease_expired" || a.workerId !== c.worker) {
          bad(c.kind, `attempt ${c.attempt} did not lose its lease on worker ${c.worker}`);
          break;
        }
        if (!ex.isTruncated && Math.abs((lostOf.get(c.attempt) ?? 0) - c.lostMs) > SLACK * 3)
          bad(c.kind, `attempt ${c.attempt} lost ${lostOf.get(c.attempt) ?? 0} ms, not ${c.lostMs}`);
        const after = waits.find((w) => w.attempt === c.attempt && (w.startEvent === "reclaim" || w.startEvent === "rescue"));
        if (c.requeueMs > (after ? after.to - after.from : 0) + SLACK)
          bad(c.kind, `the wait after attempt ${c.attempt} was shorter than ${c.requeueMs} ms`);
        if (c.silentAt !== null) {
          const [w] = await execute<{ lastSeenAt: Date }>(db, sql`SELECT last_seen_at FROM workers WHERE id = ${c.worker}`);
          if (
            !w ||
            Math.abs(w.lastSeenAt.getTime() - c.silentAt) > 1 ||
            c.silentAt < a.claimedAt.getTime() - 1 ||
            c.silentAt > a.finishedAt.getTime() + 1
          ) {
            bad(c.kind, `worker ${c.worker}'s last heartbeat is not ${new Date(c.silentAt).toISOString()} within the attempt`);
          }
        }
        const recovery = [...f.log]
          .reverse()
          .find((e) => e.attempt === c.attempt && e.actorKind === "supervisor" && e.at.getTime() === a.finishedAt.getTime());
        // The crash backoff its reclaim recorded, within the wait after it; and no claim came before it ended.
        const held = heldAfter.get(c.attempt) ?? 0;
        if (!ex.isTruncated && Math.abs(held - c.heldMs) > SLACK)
          bad(c.kind, `attempt ${c.attempt} was held back ${held} ms after its loss, not ${c.heldMs}`);
        const heldUntil = heldUntilOf(recovery?.payload);
        const next = f.attempts.find((x) => x.attempt === c.attempt + 1);
        if (heldUntil !== null && next && next.claimedAt.getTime() < heldUntil - SLACK)
          bad(c.kind, `attempt ${c.attempt + 1} was claimed before the backoff of attempt ${c.attempt} ended`);
        if (c.refunded !== (recovery?.event === "rescue"))
          bad(c.kind, `attempt ${c.attempt} was ${recovery?.event === "rescue" ? "" : "not "}refunded`);
        if (c.blamedOn) {
          const named = (recovery?.payload?.crash as { blamed?: { jobId?: string } } | undefined)?.blamed?.jobId;
          if (named !== c.blamedOn.jobId)
            bad(c.kind, `the recovery of attempt ${c.attempt} names ${named ?? "no job"} as the crash, not ${c.blamedOn.jobId}`);
          const [x] = await execute<{ n: number }>(
            db,
            sql`
            SELECT count(*)::int AS n FROM job_attempts WHERE job_id = ${c.blamedOn.jobId} AND worker_id = ${c.worker} AND outcome = 'lease_expired'`,
          );
          if (!x?.n) bad(c.kind, `job ${c.blamedOn.jobId} did not die on worker ${c.worker}`);
        }
        break;
      }
      case "queue_paused": {
        const rows = await execute<{ event: string; at: Date; actorKind: ActorKind; actorId: string }>(
          db,
          sql`
          SELECT event, at, actor_kind, actor_id FROM queue_events WHERE queue = ${c.queue} AND event IN ('pause', 'resume')
             AND at >= ${new Date(c.from - 1)} AND at <= ${new Date(ex.asOf)} ORDER BY at, id`,
        );
        const pause = rows.find((r) => r.event === "pause" && Math.abs(r.at.getTime() - c.from) <= 1);
        if (!pause) bad(c.kind, `queue ${c.queue} was not paused at ${new Date(c.from).toISOString()}`);
        else if (c.by && c.by.id && (pause.actorId !== c.by.id || pause.actorKind !== c.by.kind))
          bad(c.kind, `queue ${c.queue} was paused by ${pause.actorId}, not ${c.by.id}`);
        const resume = rows.find((r) => r.event === "resume" && r.at.getTime() > c.from);
        if (c.to === null && resume) bad(c.kind, `queue ${c.queue} was resumed at ${resume.at.toISOString()}: the pause had ended`);
        if (c.to !== null && (!resume || Math.abs(resume.at.getTime() - c.to) > 1))
          bad(c.kind, `queue ${c.queue} was not resumed at ${new Date(c.to).toISOString()}`);
        if (c.waitedMs > overlap(waitSpans, { from: c.from, to: c.to ?? ex.asOf }) + SLACK)
          bad(c.kind, `it waited less than ${c.waitedMs} ms while the queue was paused`);
        break;
      }
      case "queue_limit": {
        if (c.waitedMs > overlap(waitSpans, { from: c.from, to: c.to ?? ex.asOf }) + SLACK)
          bad(c.kind, `it waited less than ${c.waitedMs} ms while the queue was at its limit`);
        const [limit] = await execute<{ event: string; value: number | null }>(
          db,
          sql`
          SELECT event, value FROM queue_events WHERE queue = ${c.queue} AND event IN ('limit', 'unlimit') AND at < ${new Date(c.from + 1)} ORDER BY at DESC, id DESC LIMIT 1`,
        );
        if (limit?.event !== "limit" || limit.value !== c.limit)
          bad(
            c.kind,
            `queue ${c.queue}'s limit at ${new Date(c.from).toISOString()} was ${limit?.event === "limit" ? limit.value : "none"}, not ${c.limit}`,
          );
        // Times in an explanation are whole milliseconds; the database keeps microseconds: a stretch that began at a
        // claim made at 12:00:00.123456 begins at .123, before the claim. It is checked a millisecond in, and halfway.
        const end = c.to ?? ex.asOf;
        for (const t of [Math.min(c.from + 1, end - 1), Math.max(c.from + 1, Math.floor((c.from + end) / 2))]) {
          const atWork = await atWorkAt(db, c.queue, t);
          if (atWork < c.limit)
            bad(c.kind, `queue ${c.queue} had ${atWork} jobs at work at ${new Date(t).toISOString()}, below its limit of ${c.limit}`);
        }
        break;
      }
      case "no_worker": {
        if (c.waitedMs > overlap(waitSpans, c) + SLACK)
          bad(c.kind, `it did not wait ${c.waitedMs} ms between ${new Date(c.from).toISOString()} and ${new Date(c.to).toISOString()}`);
        const [row] = await execute<{ n: number }>(
          db,
          sql`
          SELECT (SELECT count(*) FROM job_attempts a WHERE a.claimed_at >= ${new Date(c.from)} AND a.claimed_at < ${new Date(c.to)} AND a.finished_at >= ${new Date(c.from)}
                     AND a.job_id IN (SELECT id FROM job_catalog WHERE queue = ${c.queue}))
               + (SELECT count(*) FROM jobs_live l WHERE l.queue = ${c.queue} AND l.run_claimed_at >= ${new Date(c.from)} AND l.run_claimed_at < ${new Date(c.to)}) AS n`,
        );
        if (Number(row?.n ?? 0) > 0) bad(c.kind, `${row?.n} jobs of queue ${c.queue} were claimed in that stretch: a worker was serving it`);
        break;
      }
      case "busy":
        if (c.ms > phases.queue_wait + SLACK * segs.length)
          bad(c.kind, `it waited in the queue for ${phases.queue_wait} ms in all, less than ${c.ms}`);
        break;
      case "ahead": {
        const n = await countAhead(db, f.catalog);
        if (c.capped ? n < c.n : n !== c.n) bad(c.kind, `${n} jobs were ahead of it at submit, not ${c.n}`);
        break;
      }
      case "skipped": {
        const n = await countStartedFirst(db, f.catalog, ex.asOf);
        if (c.capped ? n.n < c.n : n.n !== c.n || n.morePriority !== c.morePriority)
          bad(c.kind, `${n.n} later jobs (${n.morePriority} more urgent) were started first, not ${c.n} (${c.morePriority})`);
        break;
      }
      case "compare":
      case "large_input": {
        const sample = await sampleOf(db, f.catalog, c.scope);
        if (sample.length !== c.n) bad(c.kind, `the sample has ${sample.length} jobs, not ${c.n}`);
        const values =
          c.kind === "compare"
            ? sample.map((s) => s[c.metric]).filter((v): v is number => v !== null)
            : sample.map((s) => s.input).filter((v): v is number => v !== null);
        const p50 = nearestRank(values, 0.5);
        const p95 = nearestRank(values, 0.95);
        if (Math.abs(p50 - c.p50) > 1 || Math.abs(p95 - c.p95) > 1) bad(c.kind, `p50/p95 are ${p50}/${p95}, not ${c.p50}/${c.p95}`);
        if (c.kind === "large_input") {
          const v = (f.catalog.params as Record<string, unknown> | null)?.[c.param];
          if (v !== c.value) bad(c.kind, `its ${c.param} is ${String(v)}, not ${c.value}`);
          if (!(c.value > c.p95)) bad(c.kind, `${c.value} is not beyond the p95 ${c.p95}`);
        } else {
          if (c.above !== c.value > c.p95) bad(c.kind, `${c.value} ${c.value > c.p95 ? "exceeds" : "does not exceed"} the p95 ${c.p95} it quotes`);
          const own = ownMetric(f, c.metric, ex.asOf, evs);
          if (own !== null && Math.abs(own - c.value) > SLACK * segs.length) bad(c.kind, `its ${c.metric} is ${own} ms, not ${c.value}`);
        }
        break;
      }
    }
  }
  checkLead(ex, f, state, evs, bad);
  return out;
}

/** The lead is a person's decision where one ended the job, why a dead job failed, else the largest cause. */
function checkLead(ex: Explanation, f: Facts, state: JobState, evs: readonly Ev[], bad: (c: Violation["claim"], why: string) => void) {
  const lead = ex.lead === null ? null : ex.claims[ex.lead];
  if (ex.lead !== null && !lead) return bad("lead", "the lead is not one of the claims");
  const failed = f.attempts.some((a) => a.outcome === "failed");
  const lost = f.attempts.some((a) => a.outcome === "lease_expired");
  if (ex.cause === "nothing_unusual" && (failed || lost)) bad("lead", "a job whose attempts failed or were lost is called nothing unusual");
  const last = [...evs].reverse()[0];
  const person = (k: ActorKind) => k === "operator" || k === "tenant" || k === "api";
  if (state === "dead") {
    const deadBy = f.log.find((e) => e.toState === "dead" && e.stateVersion === last?.version);
    const poison = f.attempts.at(-1)?.errorClass === POISON_ERROR_CLASS;
    const want = poison ? "poison" : deadBy && person(deadBy.actorKind) ? "gave_up" : null;
    if (want && ex.cause !== want) bad("lead", `a dead job ${poison ? "stopped as poison" : "given up by a person"} leads with ${ex.cause}`);
    if (!want && ex.cause !== "failed" && ex.cause !== "lost_attempt") bad("lead", `a dead job leads with ${ex.cause}, not why it failed`);
    return;
  }
  if (state === "cancelled" || state === "cancelling") {
    if (f.log.some((e) => e.event === "cancel") && ex.cause !== "cancelled") bad("lead", `a cancelled job leads with ${ex.cause}`);
    return;
  }
  const costs = Object.entries(ex.costs) as [CauseKind, number][];
  const leadCost = ex.costs[ex.cause];
  if (leadCost !== undefined) {
    if (!mayLead(ex.cause, leadCost, ex.totalMs)) bad("lead", `it leads with ${ex.cause} (${leadCost} ms), too small a part of its ${ex.totalMs} ms`);
    // A larger cost that may not lead (too small a part of the total) is no contradiction.
    const bigger = costs.find(([k, ms]) => k !== ex.cause && ms > leadCost + 1 && mayLead(k, ms, ex.totalMs));
    if (bigger) bad("lead", `it leads with ${ex.cause} (${leadCost} ms) though ${bigger[0]} cost more (${bigger[1]} ms)`);
  }
}

/** The jobs of `queue` at work at instant `t` (claimed, running or cancelling; paused ones give their slot back). */
async function atWorkAt(db: Db, queue: string, t: number): Promise<number> {
  const at = new Date(t);
  const [row] = await execute<{ n: number }>(
    db,
    sql`
    WITH held AS (
      SELECT a.job_id, a.claimed_at FROM job_attempts a JOIN job_catalog c ON c.id = a.job_id
       WHERE c.queue = ${queue} AND a.claimed_at <= ${at} AND a.finished_at > ${at}
      UNION ALL
      SELECT l.id, l.run_claimed_at FROM jobs_live l WHERE l.queue = ${queue} AND l.lease_owner IS NOT NULL AND l.run_claimed_at <= ${at})
    SELECT count(*)::int AS n FROM held h
     WHERE NOT EXISTS (
       SELECT 1 FROM job_log p WHERE p.job_id = h.job_id AND p.event = 'pause' AND p.at >= h.claimed_at AND p.at <= ${at}
          AND NOT EXISTS (SELECT 1 FROM job_log r WHERE r.job_id = h.job_id AND r.from_state = 'paused' AND r.state_version > p.state_version AND r.at <= ${at}))`,
  );
  return row?.n ?? 0;
}

async function countAhead(db: Db, c: Catalog): Promise<number> {
  // Compared in SQL, to the microsecond: a job claimed within the millisecond of this one's submit is before or after it.
  const [row] = await execute<{ n: number }>(
    db,
    sql`
    WITH me AS (SELECT created_at FROM job_catalog WHERE id = ${c.id})
    SELECT count(*) FILTER (WHERE x.first_move IS NULL OR x.first_move > (SELECT created_at FROM me))::int AS n FROM (
      SELECT (SELECT min(at) FROM (
                SELECT a.claimed_at AS at FROM job_attempts a WHERE a.job_id = o.id AND a.claim_version = 1
                UNION ALL SELECT l.run_claimed_at FROM jobs_live l WHERE l.id = o.id AND l.run_version = 1
                UNION ALL SELECT e.at FROM job_log e WHERE e.job_id = o.id AND e.state_version = 1 AND e.at >= o.created_at) m) AS first_move
        FROM (SELECT id, created_at FROM job_catalog WHERE queue = ${c.queue} AND created_at < (SELECT created_at FROM me) AND priority <= ${c.priority}
               ORDER BY created_at DESC LIMIT ${AHEAD_SCAN}) o) x`,
  );
  return row?.n ?? 0;
}

async function countStartedFirst(db: Db, c: Catalog, asOf: number): Promise<{ n: number; morePriority: number }> {
  // Its first claim to the microsecond, and the later jobs' first claims against it, in SQL.
  const [row] = await execute<{ n: number; morePriority: number }>(
    db,
    sql`
    WITH me AS (SELECT created_at, coalesce((SELECT claimed_at FROM job_attempts WHERE job_id = ${c.id} AND attempt = 1),
                                            (SELECT run_claimed_at FROM jobs_live WHERE id = ${c.id} AND attempt = 1 AND lease_owner IS NOT NULL),
                                            ${new Date(asOf)}::timestamptz) AS until
                  FROM job_catalog WHERE id = ${c.id})
    SELECT count(*) FILTER (WHERE x.first_claim < me.until)::int AS n,
           count(*) FILTER (WHERE x.first_claim < me.until AND x.priority < ${c.priority})::int AS more_priority
      FROM me, (SELECT o.priority, coalesce((SELECT a.claimed_at FROM job_attempts a WHERE a.job_id = o.id AND a.attempt = 1),
                                           (SELECT l.run_claimed_at FROM jobs_live l WHERE l.id = o.id AND l.attempt = 1 AND l.lease_owner IS NOT NULL)) AS first_claim
                  FROM job_catalog o
                 WHERE o.queue = ${c.queue} AND o.created_at > (SELECT created_at FROM me) AND o.created_at < (SELECT until FROM me)
                 ORDER BY o.created_at LIMIT ${AHEAD_SCAN}) x
     GROUP BY me.until`,
  );
  return { n: row?.n ?? 0, morePriority: row?.morePriority ?? 0 };
}

type Sampled = { total: number | null; run: number | null; wait: number | null; input: number | null };

/** The baseline's jobs, chosen again: submitted in the window, succeeded before its end, the newest first. */
async function sampleOf(db: Db, c: Catalog, scope: ClaimOf<"compare">["scope"]): Promise<Sampled[]> {
  const param = sizeParamOf(c.type);
  const rows = await execute<{
    createdAt: Date;
    notBefore: Date;
    params: Record<string, unknown>;
    startedAt: Date | null;
    finishedAt: Date | null;
    firstClaim: Date | null;
  }>(
    db,
    sql`
    SELECT w.created_at, w.not_before, w.params, s.started_at, s.finished_at,
           (SELECT f.claimed_at FROM job_attempts f WHERE f.job_id = w.id AND f.attempt = 1) AS first_claim
      FROM (SELECT id, created_at, not_before, params FROM job_catalog
             WHERE type = ${scope.type} AND (${scope.tenantId}::text IS NULL OR tenant_id = ${scope.tenantId})
               AND created_at >= ${new Date(scope.from)} AND created_at < ${new Date(scope.to)} AND id <> ${c.id}
             ORDER BY created_at DESC LIMIT ${BASELINE_SCAN}) w
      JOIN LATERAL (SELECT a.started_at, a.finished_at FROM job_attempts a
                     WHERE a.job_id = w.id AND a.outcome = 'succeeded' AND a.finished_at < ${new Date(scope.to)} LIMIT 1) s ON true
     ORDER BY w.created_at DESC LIMIT ${BASELINE_SAMPLE}`,
  );
  return rows.map((r) => {
    const due = Math.max(r.createdAt.getTime(), r.notBefore.getTime());
    const v = param ? r.params?.[param] : undefined;
    return {
      total: r.finishedAt ? r.finishedAt.getTime() - r.createdAt.getTime() : null,
      run: r.finishedAt && r.startedAt ? r.finishedAt.getTime() - r.startedAt.getTime() : null,
      wait: r.firstClaim ? Math.max(0, r.firstClaim.getTime() - due) : null,
      input: typeof v === "number" ? v : null,
    };
  });
}

/** The job's own value of a compared metric, from its history. */
function ownMetric(f: Facts, metric: "total" | "run" | "wait", asOf: number, evs: readonly Ev[]): number | null {
  const created = f.catalog.createdAt.getTime();
  const end = TERMINAL.has(evs.at(-1)!.to) ? evs.at(-1)!.at : asOf;
  if (metric === "total") return end - created;
  if (metric === "run") {
    const ok = f.attempts.find((a) => a.outcome === "succeeded");
    if (ok?.startedAt) return ok.finishedAt.getTime() - ok.startedAt.getTime();
    return f.live?.runStartedAt ? asOf - f.live.runStartedAt.getTime() : null;
  }
  if (evs.some((e) => e.event === "replay")) return null;
  const rescheduled = evs.some((e) => isRescheduling(e.event) && e.version > 0);
  const due = Math.max(created, rescheduled ? created : f.catalog.notBefore.getTime());
  const first =
    f.attempts.find((a) => a.attempt === 1)?.claimedAt.getTime() ?? (f.live?.attempt === 1 ? f.live.runClaimedAt?.getTime() : undefined) ?? asOf;
  return Math.max(0, first - due);
}

function nearestRank(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function overlap(spans: readonly { from: number; to: number }[], i: { from: number; to: number }): number {
  return spans.reduce((s, x) => s + Math.max(0, Math.min(x.to, i.to) - Math.max(x.from, i.from)), 0);
}

/**
 * Poison across jobs: a job stopped as poison was the one to blame for each worker death it was in —
 * on each, it had at least as many unexplained deaths as every other job that died with it (a death
 * is explained when the job was a bystander of one blamed on a job that had crashed REPEAT_CRASHES
 * workers by then), and on a tie it started last — and the crashes blamed on it reached the
 * threshold. Rebuilt from the attempts and the recovery events (not from the error class of the
 * job's own attempts), so a bystander stopped as poison is found however it was labelled.
 */
export async function checkPoison(db: Db, threshold = POISON_CRASHES): Promise<Violation[]> {
  const poisoned = await execute<{ jobId: string }>(db, sql`SELECT DISTINCT job_id FROM job_attempts WHERE error_class = ${POISON_ERROR_CLASS}`);
  const out: Violation[] = [];
  /** A job's unexplained deaths before `at` (its lost attempts recovered before, less the explained ones), as the supervisor counted them then. */
  const deathsBefore = async (jobId: string, at: Date) => {
    const [r] = await execute<{ n: number }>(
      db,
      sql`
      SELECT count(*)::int AS n FROM job_attempts a
       WHERE a.job_id = ${jobId} AND a.outcome = 'lease_expired' AND a.finished_at < ${at}
         AND NOT (a.error_class = ${WORKER_LOST_CLASS} AND coalesce((
               SELECT count(*) FROM job_attempts b
                WHERE b.job_id = (SELECT (e.payload->'crash'->'blamed'->>'jobId')::uuid FROM job_log e
                                   WHERE e.job_id = a.job_id AND e.attempt = a.attempt AND e.actor_kind = 'supervisor' AND e.at >= a.claimed_at
                                   ORDER BY e.state_version DESC LIMIT 1)
                  AND b.outcome = 'lease_expired' AND b.error_class IS DISTINCT FROM ${WORKER_LOST_CLASS} AND b.finished_at < ${at}), 0) >= ${REPEAT_CRASHES})`,
    );
    return r?.n ?? 0;
  };
  /** The worker deaths a job was blamed for before `at`. */
  const crashesBefore = async (jobId: string, at: Date) => {
    const [r] = await execute<{ n: number }>(
      db,
      sql`
      SELECT count(*)::int AS n FROM job_attempts
       WHERE job_id = ${jobId} AND outcome = 'lease_expired' AND error_class IS DISTINCT FROM ${WORKER_LOST_CLASS} AND finished_at < ${at}`,
    );
    return r?.n ?? 0;
  };
  for (const { jobId } of poisoned) {
    const mine = await execute<{ workerId: string; finishedAt: Date; began: Date }>(
      db,
      sql`
      SELECT worker_id, finished_at, coalesce(started_at, claimed_at) AS began FROM job_attempts
       WHERE job_id = ${jobId} AND outcome = 'lease_expired' ORDER BY finished_at`,
    );
    let blamed = 0;
    for (const death of mine) {
      const others = await execute<{ jobId: string; began: Date; finishedAt: Date }>(
        db,
        sql`
        SELECT o.job_id, coalesce(o.started_at, o.claimed_at) AS began, o.finished_at FROM job_attempts o
         WHERE o.worker_id = ${death.workerId} AND o.job_id <> ${jobId} AND o.outcome = 'lease_expired'
           AND o.finished_at BETWEEN ${new Date(death.finishedAt.getTime() - CRASH_WINDOW_MS)} AND ${new Date(death.finishedAt.getTime() + CRASH_WINDOW_MS)}
           -- Not a suspect of this death: a job paused then (its handler held at a checkpoint, its
           -- lease not watched: HEARTBEAT_STATES), lost only once a resume let its lease expire.
           AND (SELECT e.to_state FROM job_log e WHERE e.job_id = o.job_id AND e.attempt = o.attempt AND e.at <= ${death.finishedAt}
                 ORDER BY e.state_version DESC LIMIT 1) IS DISTINCT FROM 'paused'`,
      );
      // The death began with its first recovery: what each victim had been through before it decides.
      const start = new Date(Math.min(death.finishedAt.getTime(), ...others.map((o) => o.finishedAt.getTime())));
      const me = {
        jobId,
        deaths: (await deathsBefore(jobId, start)) + 1,
        crashes: await crashesBefore(jobId, start),
        startedAt: death.began.getTime(),
      };
      const deaths = me.deaths;
      let beaten: { jobId: string; deaths: number } | null = null;
      for (const o of others) {
        const them = {
          jobId: o.jobId,
          deaths: (await deathsBefore(o.jobId, start)) + 1,
          crashes: await crashesBefore(o.jobId, start),
          startedAt: o.began.getTime(),
        };
        if (outranks(them, me)) beaten = them;
      }
      if (beaten)
        out.push({
          jobId,
          claim: "poison",
          why: `stopped as poison, but the death of worker ${death.workerId} is ${beaten.jobId}'s to blame (${beaten.deaths} unexplained deaths to its ${deaths})`,
        });
      else blamed++;
    }
    if (blamed < threshold)
      out.push({ jobId, claim: "poison", why: `stopped as poison after ${blamed} worker deaths it is to blame for, fewer than ${threshold}` });
  }
  return out;
}

export type CheckReport = {
  jobs: number;
  claims: number;
  byKind: Record<string, number>;
  violations: Violation[];
  /** Tenant sentences that named something a tenant must not read (a worker, another job or customer, staff, the machinery). */
  tenantLeaks: { jobId: string; text: string; found: string }[];
};

/**
 * Explain every job (or `ids`) as staff and as its tenant, check every staff claim against the
 * database, check the tenant's words for what a tenant must not read, and the poison rule across jobs.
 * `explainJob` is passed in (lib/insight/context.ts) so this module stays free of the explainer's reads.
 */
export async function checkAll(
  db: Db,
  explainJob: (
    id: string,
    audience: "staff" | "tenant",
    asOf: number,
  ) => Promise<{ explanation: Explanation; words: { summary: string; next: string | null } } | null>,
  opts: { ids?: readonly string[]; log?: (line: string) => void } = {},
): Promise<CheckReport> {
  const ids = opts.ids ?? (await execute<{ id: string }>(db, sql`SELECT id FROM job_catalog ORDER BY created_at`)).map((r) => r.id);
  const tenants = (await execute<{ id: string }>(db, sql`SELECT id FROM tenants`)).map((r) => r.id);
  const staffIds = (
    await execute<{ actorId: string }>(db, sql`SELECT DISTINCT actor_id FROM job_log WHERE actor_kind IN ('operator', 'supervisor')`)
  ).map((r) => r.actorId);
  const report: CheckReport = { jobs: 0, claims: 0, byKind: {}, violations: [], tenantLeaks: [] };
  for (const id of ids) {
    const asOf = Date.now();
    const facts = await readFacts(db, id);
    const staff = await explainJob(id, "staff", asOf);
    if (!staff || !facts) continue;
    report.jobs++;
    report.claims += staff.explanation.claims.length;
    for (const c of staff.explanation.claims) report.byKind[c.kind] = (report.byKind[c.kind] ?? 0) + 1;
    report.violations.push(...(await checkExplanation(db, id, staff.explanation, facts)));
    const tenant = await explainJob(id, "tenant", asOf);
    if (tenant) {
      // The job's own error messages are its own words, quoted: they are not checked for the machinery's.
      const own = facts.attempts.map((a) => a.errorMessage).filter((m): m is string => !!m);
      const text = own.reduce((s, m) => s.split(m).join("…"), `${tenant.words.summary} ${tenant.words.next ?? ""}`);
      const forbidden = [
        ...tenants.filter((t) => t !== facts.catalog.tenantId).map((t) => new RegExp(`\\b${escape(t)}\\b`, "i")),
        ...staffIds.filter((s) => s.length > 2).map((s) => new RegExp(escape(s), "i")),
        ...[...new Set(facts.attempts.map((a) => a.workerId))].filter((w) => w.length > 0).map((w) => new RegExp(`\\b${escape(w)}\\b`)),
        /\b(worker|lease|reclaim|rescue|poison|supervisor|p95|p50|state version|claimed)\b/i,
        /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}/i,
      ];
      for (const re of forbidden) {
        const m = re.exec(text);
        if (m) report.tenantLeaks.push({ jobId: id, text, found: m[0] });
      }
    }
    if (report.jobs % 500 === 0) opts.log?.(`checked ${report.jobs} of ${ids.length} jobs: ${report.violations.length} false claims`);
  }
  report.violations.push(...(await checkPoison(db)));
  return report;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

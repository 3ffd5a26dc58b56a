// A plain in-memory model of the job system for the model-based tests: jobs, leases,
// heartbeat ages, retry due times and run records, on a model clock. Legality comes from
// the transition table (the spec); everything else (fencing, staleness, claimability,
// what the supervisor picks, what a heartbeat answers) is modelled here independently of
// the SQL in lib/jobs and lib/supervisor, which is what the tests compare against.
import { canApply, isLeased, step } from "../fsm/machine";
import { HEARTBEAT_STATES, type ActorKind, type JobEvent, type JobState, type RunOutcome } from "../fsm/table";
import { POISON_LEASE_LOSSES } from "../jobs/poison";

export type ModelRun = { attempt: number; started: boolean; outcome: RunOutcome | null };
export type ModelJob = {
  id: string;
  state: JobState;
  attempt: number;
  maxAttempts: number;
  version: number;
  leaseOwner: string | null;
  /** Model ms since the last heartbeat (or claim, or resume). */
  heartbeatAge: number;
  /** Model ms until not_before; <= 0 means due. */
  dueIn: number;
  runs: ModelRun[];
};

export type Outcome = { ok: true } | { ok: false; kind: "conflict" | "illegal" | "not_found" };

const watched = new Set<JobState>(HEARTBEAT_STATES);

export class Model {
  jobs: ModelJob[] = [];
  crashed = new Set<string>();

  constructor(readonly staleAfterMs: number) {}

  add(id: string, maxAttempts: number) {
    this.jobs.push({ id, state: "queued", attempt: 0, maxAttempts, version: 0, leaseOwner: null, heartbeatAge: 0, dueIn: 0, runs: [] });
  }

  at(i: number): ModelJob | undefined {
    return this.jobs.length ? this.jobs[i % this.jobs.length] : undefined;
  }

  /** The i-th job matching `pred`, or the i-th job when none does: commands aim at jobs where something can happen. */
  pick(i: number, pred: (j: ModelJob) => boolean): ModelJob | undefined {
    const hits = this.jobs.filter(pred);
    return hits.length ? hits[i % hits.length] : this.at(i);
  }

  /** Apply an event the caller has already found legal. */
  private apply(job: ModelJob, event: JobEvent, actor: ActorKind, opts: { owner?: string; retryInMs?: number } = {}) {
    const s = step({ state: job.state, attempt: job.attempt, maxAttempts: job.maxAttempts, stateVersion: job.version }, event, actor);
    const open = job.runs.find((r) => r.attempt === job.attempt && r.outcome === null);
    if (s.startsRun && open) open.started = true;
    if (s.closesRun && open) open.outcome = s.closesRun;
    job.state = s.next.state;
    job.attempt = s.next.attempt;
    job.maxAttempts = s.next.maxAttempts;
    job.version = s.next.stateVersion;
    if (s.opensRun) job.runs.push({ attempt: job.attempt, started: false, outcome: null });
    if (!isLeased(job.state)) job.leaseOwner = null;
    else if (opts.owner) job.leaseOwner = opts.owner;
    if (s.resetsHeartbeat || s.opensRun) job.heartbeatAge = 0;
    if (s.transition.schedules === "now") job.dueIn = 0;
    if (s.transition.schedules === "retry_at") job.dueIn = opts.retryInMs ?? 0;
  }

  claim(job: ModelJob, worker: string): boolean {
    if (job.state !== "queued" || job.dueIn > 0 || job.attempt >= job.maxAttempts) return false;
    this.apply(job, "claim", "worker", { owner: worker });
    return true;
  }

  /** A worker's fenced write: its lease and attempt first, then the table. */
  worker(job: ModelJob, worker: string, attempt: number, event: JobEvent, retryInMs?: number): Outcome {
    if (job.leaseOwner !== worker || job.attempt !== attempt) return { ok: false, kind: "conflict" };
    if (!canApply(this.snap(job), event, "worker")) return { ok: false, kind: "illegal" };
    this.apply(job, event, "worker", { retryInMs });
    return { ok: true };
  }

  /** An operator's or tenant's write from a page showing `seenVersion`. */
  person(job: ModelJob, actor: "operator" | "tenant", event: JobEvent, seenVersion: number): Outcome {
    if (seenVersion !== job.version) return { ok: false, kind: "conflict" };
    if (!canApply(this.snap(job), event, actor)) return { ok: false, kind: "illegal" };
    this.apply(job, event, actor);
    return { ok: true };
  }

  /** Which of `worker`'s leases a heartbeat renews, with the state it learns. */
  heartbeat(job: ModelJob, worker: string, attempt: number): JobState | null {
    if (this.crashed.has(worker)) return null;
    if (job.leaseOwner !== worker || job.attempt !== attempt) return null;
    job.heartbeatAge = 0;
    return job.state;
  }

  advance(ms: number) {
    for (const j of this.jobs) {
      j.heartbeatAge += ms;
      j.dueIn -= ms;
    }
  }

  /** One supervisor tick: reclaim or abandon stale leases, then promote due retries. */
  tick(): { reclaimed: number; abandoned: number; promoted: number } {
    const r = { reclaimed: 0, abandoned: 0, promoted: 0 };
    for (const j of this.jobs) {
      if (!watched.has(j.state) || j.heartbeatAge < this.staleAfterMs) continue;
      let event = (["reclaim", "abandon"] as const).find((e) => canApply(this.snap(j), e, "supervisor"));
      if (!event) continue;
      // Poison detection (lib/jobs/poison.ts): the lease that would be the job's POISON_LEASE_LOSSES-th lost one ends it.
      const lost = j.runs.filter((r) => r.outcome === "lease_expired").length;
      if (event === "reclaim" && lost + 1 >= POISON_LEASE_LOSSES && canApply(this.snap(j), "abandon", "supervisor")) event = "abandon";
      this.apply(j, event, "supervisor");
      if (event === "reclaim") r.reclaimed++;
      else r.abandoned++;
    }
    for (const j of this.jobs) {
      if (j.state === "retry_wait" && j.dueIn <= 0) {
        this.apply(j, "retry", "supervisor");
        r.promoted++;
      }
    }
    return r;
  }

  snap(j: ModelJob) {
    return { state: j.state, attempt: j.attempt, maxAttempts: j.maxAttempts, stateVersion: j.version };
  }
}

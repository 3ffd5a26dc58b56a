// A plain in-memory model of the job system for the model-based tests: jobs, leases,
// heartbeat ages, retry due times and run records, on a model clock. Legality comes from
// the transition table (the spec); everything else (fencing, staleness, claimability,
// what the supervisor picks, what a heartbeat answers) is modelled here independently of
// the SQL in lib/jobs and lib/supervisor, which is what the tests compare against.
import { canApply, isLeased, step } from "../fsm/machine";
import { HEARTBEAT_STATES, type ActorKind, type JobEvent, type JobState, type RunOutcome } from "../fsm/table";
import { crashBackoffMs, outranks, POISON_CRASHES, REPEAT_CRASHES } from "../jobs/poison";

export type ModelRun = { attempt: number; started: boolean; outcome: RunOutcome | null };
/** What the model keeps of a run beside what the database is compared with: its worker, when it began, whether its loss was a bystander's. */
type RunNotes = { worker: string; began: number; bystander: boolean; blamedJob: string | null };
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
  /** Per job and attempt. */
  private notes = new Map<string, RunNotes>();
  /** A clock that orders claims and starts the way the database's timestamps do (each command is its own statement). */
  private seq = 0;

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
    if (s.startsRun && open) {
      open.started = true;
      this.notes.get(`${job.id}:${open.attempt}`)!.began = ++this.seq;
    }
    if (s.closesRun && open) open.outcome = s.closesRun;
    job.state = s.next.state;
    job.attempt = s.next.attempt;
    job.maxAttempts = s.next.maxAttempts;
    job.version = s.next.stateVersion;
    if (s.opensRun) {
      job.runs.push({ attempt: job.attempt, started: false, outcome: null });
      this.notes.set(`${job.id}:${job.attempt}`, { worker: opts.owner!, began: ++this.seq, bystander: false, blamedJob: null });
    }
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

  /**
   * One supervisor tick: recover stale leases, then promote due retries. The jobs a worker took down
   * with it are its victims: the one on the most dead workers (then the one that began last) is
   * blamed and reclaimed, or abandoned, as a poison job at its POISON_CRASHES-th crash; the others are
   * rescued with their attempt refunded (lib/jobs/poison.ts says why); nothing of a worker is
   * recovered while the job it would blame is not stale yet.
   */
  tick(): { reclaimed: number; rescued: number; abandoned: number; promoted: number } {
    const r = { reclaimed: 0, rescued: 0, abandoned: 0, promoted: 0 };
    const stale = this.jobs.filter((j) => watched.has(j.state) && j.heartbeatAge >= this.staleAfterMs);
    const lost = (j: ModelJob) => j.runs.filter((x) => x.outcome === "lease_expired");
    const note = (j: ModelJob, attempt: number) => this.notes.get(`${j.id}:${attempt}`)!;
    const crashesOf = (id: string) => {
      const j = this.jobs.find((x) => x.id === id);
      return j ? lost(j).filter((x) => !note(j, x.attempt).bystander).length : 0;
    };
    // The dead workers a job has been on that no repeat offender explains (lib/jobs/poison.ts).
    const deaths = (j: ModelJob) =>
      lost(j).filter((x) => {
        const n = note(j, x.attempt);
        return !(n.bystander && n.blamedJob !== null && crashesOf(n.blamedJob) >= REPEAT_CRASHES);
      }).length;
    const blamed = new Map<string, string>();
    // Every lost run of the owner is one of its victims: a sequence runs for well under the real
    // supervisor's CRASH_WINDOW_MS, and each sequence has workers of its own.
    for (const owner of new Set(stale.map((j) => j.leaseOwner!))) {
      const victims: { jobId: string; deaths: number; crashes: number; startedAt: number; blamed: boolean }[] = [];
      for (const j of this.jobs) {
        for (const x of lost(j)) {
          const n = note(j, x.attempt);
          if (n.worker === owner)
            victims.push({ jobId: j.id, deaths: deaths(j), crashes: crashesOf(j.id), startedAt: n.began, blamed: !n.bystander });
        }
        // Its other leases too, not stale yet: the blame is decided knowing every job the worker held.
        if (watched.has(j.state) && j.leaseOwner === owner) {
          victims.push({ jobId: j.id, deaths: deaths(j) + 1, crashes: crashesOf(j.id), startedAt: note(j, j.attempt).began, blamed: false });
        }
      }
      const pick = victims.find((v) => v.blamed) ?? victims.reduce((a, b) => (outranks(b, a) ? b : a));
      blamed.set(owner, pick.jobId);
    }
    // A worker whose crash would be blamed on a lease that is not stale yet waits (the supervisor's rule).
    const waiting = new Set(
      [...blamed]
        .filter(([owner, id]) =>
          this.jobs.some((j) => j.id === id && watched.has(j.state) && j.leaseOwner === owner && j.heartbeatAge < this.staleAfterMs),
        )
        .map(([owner]) => owner),
    );
    for (const j of stale) {
      if (waiting.has(j.leaseOwner!)) continue;
      const bystander = blamed.get(j.leaseOwner!) !== j.id;
      const crashes = crashesOf(j.id) + 1;
      const poison = !bystander && crashes >= POISON_CRASHES && canApply(this.snap(j), "abandon", "supervisor");
      const order: JobEvent[] = bystander ? ["rescue", "reclaim", "abandon"] : ["reclaim", "abandon"];
      const event = poison ? "abandon" : order.find((e) => canApply(this.snap(j), e, "supervisor"));
      if (!event) continue;
      const attempt = j.attempt;
      const culprit = blamed.get(j.leaseOwner!) ?? null;
      // The job blamed waits its crash backoff (the supervisor's default base: the stale threshold).
      this.apply(j, event, "supervisor", { retryInMs: crashBackoffMs(crashes, this.staleAfterMs) });
      if (bystander) Object.assign(note(j, attempt), { bystander: true, blamedJob: culprit });
      if (event === "abandon") r.abandoned++;
      else if (event === "rescue") r.rescued++;
      else r.reclaimed++;
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

import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { setupTestDb } from "../db/test-db";
import { eventsFor } from "../fsm/machine";
import type { JobEvent } from "../fsm/table";
import type { CheckedJob, CheckedRun } from "../integrity/check";
import { claim } from "../jobs/claim";
import { enqueue } from "../jobs/enqueue";
import { heartbeat } from "../jobs/heartbeat";
import { checkJobIntegrity } from "../jobs/test-helpers";
import { transition } from "../jobs/transition";
import { createSupervisor } from "../supervisor/supervisor";
import { Model, type Outcome } from "./model";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// Model-based tests: random command sequences run against the real database (write path,
// claim, heartbeat, supervisor) and the in-memory model, compared after every step.
// MODEL_RUNS / MODEL_STEPS make a larger run: `MODEL_RUNS=500 npx vitest run lib/model`.
const RUNS = Number(process.env.MODEL_RUNS ?? 60);
const STEPS = Number(process.env.MODEL_STEPS ?? 40);
const STALE_MS = 30_000;
/** Small clock steps stay far below STALE_MS in total; big ones make every lease stale and every retry due. */
const SMALL_MS = 400;
const BIG_MS = 100_000;
const RETRY_IN_MS = 50_000;
const WORKERS = ["w1", "w2", "w3"] as const;

/**
 * `wid`: a worker's id in the database. Each sequence has its own workers (the supervisor blames one
 * job per dead worker among all the jobs that worker ran, and the database is shared by every sequence).
 */
type Real = { db: Db; queue: string; sup: ReturnType<typeof createSupervisor>; wid: (w: string) => string };
type Cmd = fc.AsyncCommand<Model, Real>;

const t = setupTestDb();
const stats: Record<string, number> = {};
const tally = (k: string) => (stats[k] = (stats[k] ?? 0) + 1);
afterAll(() => {
  console.log(`MODEL ${JSON.stringify({ runs: RUNS, maxSteps: STEPS, ...Object.fromEntries(Object.entries(stats).sort()) })}`);
});

/** The database agrees with the model on every job of this run, its lease, and its run records; the log replays cleanly. */
async function compare(m: Model, r: Real) {
  if (!m.jobs.length) return;
  const ids = m.jobs.map((j) => j.id);
  const rows = await execute<CheckedJob>(
    r.db,
    sql`
    SELECT id, state, attempt, max_attempts, state_version, lease_owner, finished_at FROM jobs WHERE id = ANY(${sql.param(ids)}::uuid[])`,
  );
  const runs = await execute<CheckedRun>(
    r.db,
    sql`
    SELECT job_id, attempt, started_at, finished_at, outcome FROM job_runs WHERE job_id = ANY(${sql.param(ids)}::uuid[]) ORDER BY job_id, attempt`,
  );
  for (const j of m.jobs) {
    const row = rows.find((x) => x.id === j.id);
    expect({
      id: j.id,
      state: row?.state,
      attempt: row?.attempt,
      maxAttempts: row?.maxAttempts,
      version: row?.stateVersion,
      owner: row?.leaseOwner,
    }).toEqual({
      id: j.id,
      state: j.state,
      attempt: j.attempt,
      maxAttempts: j.maxAttempts,
      version: j.version,
      owner: j.leaseOwner && r.wid(j.leaseOwner),
    });
    const mine = runs.filter((x) => x.jobId === j.id).map((x) => ({ attempt: x.attempt, started: x.startedAt !== null, outcome: x.outcome }));
    expect(mine).toEqual(j.runs);
  }
}

async function finalAudit(m: Model, r: Real) {
  for (const j of m.jobs) expect(await checkJobIntegrity(r.db, j.id)).toEqual([]);
}

const same = (real: { ok: boolean; kind?: string }, want: Outcome) => expect(real.ok ? { ok: true } : { ok: false, kind: real.kind }).toEqual(want);

class Enqueue implements Cmd {
  constructor(readonly maxAttempts: number) {}
  check = (m: Model) => m.jobs.length < 6;
  async run(m: Model, r: Real) {
    const { job } = await enqueue(
      r.db,
      {
        tenantId: "acme",
        type: "report.generate",
        params: { report: "daily_usage", period: "2026-11" },
        queue: r.queue,
        maxAttempts: this.maxAttempts,
      },
      { kind: "api", id: "model" },
    );
    m.add(job.id, this.maxAttempts);
    tally("enqueue");
    await compare(m, r);
  }
  toString = () => `enqueue(max ${this.maxAttempts})`;
}

class Claim implements Cmd {
  constructor(
    readonly i: number,
    readonly w: string,
  ) {}
  check = (m: Model) => m.jobs.length > 0;
  async run(m: Model, r: Real) {
    const job = m.pick(this.i, (j) => j.state === "queued")!;
    const got = await claim(r.db, { workerId: r.wid(this.w), queues: [r.queue], limit: 1, onlyJobIds: [job.id] });
    const want = m.claim(job, this.w);
    expect(got.length).toBe(want ? 1 : 0);
    tally(want ? "claim" : "claim:none");
    await compare(m, r);
  }
  toString = () => `claim(#${this.i} by ${this.w})`;
}

/** A worker event: start, finish, fail, abandon, stop, release; `stale` reports for the previous attempt. */
class WorkerEvent implements Cmd {
  /** `w` null: the worker that holds the job's lease (or w1). */
  event: JobEvent;
  constructor(
    readonly i: number,
    readonly w: string | null,
    readonly raw: JobEvent,
    readonly choice: number,
    readonly stale: boolean,
  ) {
    this.event = raw;
  }
  check = (m: Model) => m.jobs.length > 0;
  async run(m: Model, r: Real) {
    const job = this.w === null ? m.pick(this.i, (j) => j.leaseOwner !== null)! : m.at(this.i)!;
    const w = this.w ?? job.leaseOwner ?? "w1";
    // The lease owner picks one of the events a worker may apply now, like a real worker would.
    const legal = eventsFor(job.state, "worker").filter((e) => e !== "claim");
    this.event = this.w === null && legal.length ? legal[this.choice % legal.length]! : this.raw;
    const attempt = this.stale ? job.attempt - 1 : job.attempt;
    const real = await transition(r.db, {
      jobId: job.id,
      event: this.event,
      actor: { kind: "worker", id: r.wid(w) },
      attempt,
      ...(this.event === "fail" && { retryAt: new Date(Date.now() + RETRY_IN_MS) }),
      ...((this.event === "fail" || this.event === "abandon") && { error: { class: "ModelError", message: "x" } }),
    });
    const want = m.worker(job, w, attempt, this.event, RETRY_IN_MS);
    same(real, want);
    tally(want.ok ? `worker:${this.event}` : `refused:${want.kind}`);
    await compare(m, r);
  }
  toString = () => `${this.event}(#${this.i} by ${this.w ?? "its lease owner"}${this.stale ? ", stale attempt" : ""})`;
}

class Heartbeat implements Cmd {
  constructor(
    readonly i: number,
    readonly w: string,
  ) {}
  check = (m: Model) => m.jobs.length > 0 && !m.crashed.has(this.w);
  async run(m: Model, r: Real) {
    const job = m.pick(this.i, (j) => j.leaseOwner === this.w)!;
    const seen = await heartbeat(r.db, { workerId: r.wid(this.w), jobs: [{ id: job.id, attempt: job.attempt }] });
    const want = m.heartbeat(job, this.w, job.attempt);
    expect(seen.get(job.id)?.state ?? null).toBe(want);
    tally(want ? "heartbeat" : "heartbeat:not-mine");
    await compare(m, r);
  }
  toString = () => `heartbeat(#${this.i} by ${this.w})`;
}

/** A worker process dies: it never heartbeats again (its late reports are still possible, and fenced). */
class Crash implements Cmd {
  constructor(readonly w: string) {}
  check = (m: Model) => !m.crashed.has(this.w);
  async run(m: Model) {
    m.crashed.add(this.w);
    tally("crash");
  }
  toString = () => `crash(${this.w})`;
}

class Advance implements Cmd {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    // heartbeat_at and not_before are outside the guarded columns: moving them back is the clock moving on.
    await execute(
      r.db,
      sql`UPDATE jobs_live SET heartbeat_at = heartbeat_at - ${this.ms} * interval '1 millisecond',
                                not_before = not_before - ${this.ms} * interval '1 millisecond' WHERE queue = ${r.queue}`,
    );
    m.advance(this.ms);
    tally("advance");
    await compare(m, r);
  }
  toString = () => `advance(${this.ms} ms)`;
}

class Tick implements Cmd {
  check = () => true;
  async run(m: Model, r: Real) {
    await r.sup.tick();
    const want = m.tick();
    tally("tick");
    if (want.reclaimed) tally("tick:reclaim");
    if (want.rescued) tally("tick:rescue");
    if (want.abandoned) tally("tick:abandon");
    if (want.promoted) tally("tick:promote");
    await compare(m, r);
  }
  toString = () => "supervisor tick";
}

/** cancel, replay, pause, resume (and retry now, abandon) from a page that is fresh or one version stale. */
class Person implements Cmd {
  constructor(
    readonly i: number,
    readonly actor: "operator" | "tenant",
    readonly event: JobEvent,
    readonly stalePage: boolean,
  ) {}
  check = (m: Model) => m.jobs.length > 0;
  async run(m: Model, r: Real) {
    const job = m.at(this.i)!;
    const seen = this.stalePage ? Math.max(0, job.version - 1) : job.version;
    const real = await transition(r.db, {
      jobId: job.id,
      event: this.event,
      actor: { kind: this.actor, id: `model-${this.actor}` },
      expected: { state: job.state, version: seen },
    });
    const want = seen === job.version ? m.person(job, this.actor, this.event, seen) : { ok: false as const, kind: "conflict" as const };
    same(real, want);
    tally(want.ok ? `${this.actor}:${this.event}` : `refused:${want.kind}`);
    await compare(m, r);
  }
  toString = () => `${this.actor} ${this.event}(#${this.i}${this.stalePage ? ", stale page" : ""})`;
}

const idx = fc.nat({ max: 5 });
const worker = fc.constantFrom(...WORKERS);
const enqueueCmd = fc.integer({ min: 1, max: 3 }).map((n) => new Enqueue(n));
const claimCmd = fc.tuple(idx, worker).map(([i, w]) => new Claim(i, w));
const workerCmd = fc
  .tuple(
    idx,
    fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: worker, weight: 1 }),
    fc.constantFrom<JobEvent>("start", "start", "finish", "fail", "fail", "abandon", "stop", "release"),
    fc.nat({ max: 9 }),
  )
  .map(([i, w, e, stale]) => new WorkerEvent(i, w, e, stale, stale < 2));
const heartbeatCmd = fc.tuple(idx, worker).map(([i, w]) => new Heartbeat(i, w));
const operatorCmd = fc
  .tuple(idx, fc.constantFrom<JobEvent>("cancel", "replay", "replay", "pause", "resume", "resume", "retry", "abandon"), fc.nat({ max: 9 }))
  .map(([i, e, stale]) => new Person(i, "operator", e, stale < 2));
/** Weighted by repetition: the worker's path is the long one, cancels end stories early. */
const commands = [
  enqueueCmd,
  enqueueCmd,
  claimCmd,
  claimCmd,
  claimCmd,
  workerCmd,
  workerCmd,
  workerCmd,
  workerCmd,
  workerCmd,
  heartbeatCmd,
  heartbeatCmd,
  worker.map((w) => new Crash(w)),
  fc.constantFrom(SMALL_MS, SMALL_MS, BIG_MS).map((ms) => new Advance(ms)),
  fc.constantFrom(SMALL_MS, BIG_MS).map((ms) => new Advance(ms)),
  fc.constant(new Tick()),
  fc.constant(new Tick()),
  operatorCmd,
  operatorCmd,
  fc.tuple(idx, fc.boolean()).map(([i, stale]) => new Person(i, "tenant", "cancel", stale)),
];

describe("model-based: the database against the in-memory model", () => {
  it(`agrees after every step of ${RUNS} random command sequences`, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(...commands), { minLength: Math.floor(STEPS / 2), maxLength: STEPS }), async (cmds) => {
        const queue = `model-${++run}-${Math.random().toString(36).slice(2, 7)}`;
        const m = new Model(STALE_MS);
        const real: Real = {
          db: t.pool,
          queue,
          sup: createSupervisor({ db: t.pool, id: "model-sup", staleAfterMs: STALE_MS }),
          wid: (w) => `${queue}:${w}`,
        };
        await fc.asyncModelRun(() => ({ model: m, real }), cmds);
        await finalAudit(m, real);
        tally("sequences");
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});

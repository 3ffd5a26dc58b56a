// Helpers for the worker's database tests: real PostgreSQL, polled waits.
import { randomBytes } from "node:crypto";
import { afterEach } from "vitest";
import type { Db, Pool } from "../db/client";
import type { JobState } from "../fsm/table";
import { enqueue } from "../jobs/enqueue";
import type { JobType } from "../jobs/job-types";
import type { JobRow } from "../jobs/types";
import { api as API, getJob } from "../jobs/test-helpers";
import { waitFor } from "../db/test-wait";
import { silentLogger } from "./log";
import type { Handlers, Worker, WorkerOptions } from "./types";
import { createWorker } from "./worker";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

export { eventsOf, getJob, rejectionsOf, seedTenants } from "../jobs/test-helpers";
export { waitFor } from "../db/test-wait";
export { api as API, operator as OPERATOR, supervisor as SUPERVISOR } from "../jobs/test-helpers";

let n = 0;
/** A queue of its own per test, so a test's worker never claims another test's jobs. */
export const freshQueue = () => `wq${++n}-${randomBytes(3).toString("hex")}`;

export async function submit(db: Db, queue: string, opts: { type?: JobType; params?: unknown; maxAttempts?: number } = {}): Promise<JobRow> {
  const { job } = await enqueue(
    db,
    {
      tenantId: "acme",
      type: opts.type ?? "report.generate",
      params: opts.params ?? { report: "daily_usage", period: "2026-11" },
      queue,
      maxAttempts: opts.maxAttempts,
    },
    API,
  );
  return job;
}

export function jobIn(db: Db, id: string, ...states: JobState[]): Promise<JobRow> {
  return waitFor(`job ${id} in ${states.join("|")}`, async () => {
    const job = await getJob(db, id);
    return states.includes(job.state) ? job : null;
  });
}

export type RunRow = {
  attempt: number;
  workerId: string;
  startedAt: Date | null;
  finishedAt: Date | null;
  outcome: string | null;
  errorClass: string | null;
  errorMessage: string | null;
  result: unknown;
};
export const runsOf = (db: Db, id: string) =>
  execute<RunRow>(
    db,
    sql`SELECT attempt, worker_id, started_at, finished_at, outcome, error_class, error_message, result
                  FROM job_runs WHERE job_id = ${id} ORDER BY attempt`,
  );

/** A promise with its resolver outside: a gate a handler waits at, or a flag a test waits for. */
export function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * What starts a test's workers on `db`: one queue each, quick to beat and to poll (`defaults`, then
 * each start's `over`, change that), all stopped after each test.
 */
export function testWorkers(db: Pool, defaults: Partial<WorkerOptions> = {}) {
  let started: Worker[] = [];
  afterEach(async () => {
    await Promise.all(started.map((w) => w.stop()));
    started = [];
  });
  return async (queue: string, handlers: Handlers, over: Partial<WorkerOptions> = {}): Promise<Worker> => {
    const worker = createWorker({
      db,
      queues: [queue],
      concurrency: 2,
      handlers,
      heartbeatIntervalMs: 100,
      pollIntervalMs: 100,
      drainTimeoutMs: 2_000,
      log: silentLogger,
      ...defaults,
      ...over,
    });
    await worker.start();
    started.push(worker);
    return worker;
  };
}

// Helpers for the worker's database tests: real PostgreSQL, polled waits.
import { randomBytes } from "node:crypto";
import type { Db } from "../db/client";
import type { JobState } from "../fsm/table";
import { enqueue } from "../jobs/enqueue";
import type { JobType } from "../jobs/job-types";
import type { JobRow } from "../jobs/types";
import { api as API, getJob } from "../jobs/test-helpers";
import { waitFor } from "../db/test-wait";
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

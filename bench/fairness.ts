// Fairness between tenants in one queue: tenant A submits 10,000 jobs, then tenant B
// submits 10; how long do B's jobs wait, with the queue fair and not, and what does fairness cost?
//
// Every job goes in through `enqueue` (a fair queue tags it at submit). The worker starts once all
// of them are queued, so both runs see the same backlog: B's wait is from the worker's start to
// the start of each of B's handlers, and the throughput is all 10,010 jobs over the time to run them.
import { performance } from "node:perf_hooks";
import { closeDb, connect } from "../lib/db/client";
import { enqueue } from "../lib/jobs/enqueue";
import { changeQueue } from "../lib/jobs/queues";
import { silentLogger } from "../lib/worker/log";
import { createWorker } from "../lib/worker/worker";
import { pct, waitUntil } from "./lib";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

export type FairnessRun = {
  fair: boolean;
  aJobs: number;
  bJobs: number;
  bWaitP50: number;
  bWaitP99: number;
  bLastStartRank: number;
  jobsPerSec: number;
};

const QUEUE = "fairness";
const OPERATOR = { kind: "operator", id: "bench" } as const;
const API = { kind: "api", id: "bench" } as const;

export async function fairnessRun(url: string, opts: { fair: boolean; aJobs: number; bJobs: number; concurrency: number }): Promise<FairnessRun> {
  const db = connect(url, { max: 10, appName: "bench-fairness", genericPlans: true });
  try {
    await execute(db, sql`INSERT INTO tenants (id, name) VALUES ('globex', 'Globex') ON CONFLICT DO NOTHING`);
    await changeQueue(db, QUEUE, { kind: "fair", fair: opts.fair }, OPERATOR);
    const submit = (tenantId: string) =>
      enqueue(db, { tenantId, type: "report.generate", queue: QUEUE, params: { report: "daily_usage", period: "2026-11" } }, API).then(
        (r) => r.job.id,
      );
    // A's burst, eight submits at a time, then B's jobs.
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < opts.aJobs) {
          next++;
          await submit("acme");
        }
      }),
    );
    const bIds = new Set<string>();
    for (let i = 0; i < opts.bJobs; i++) bIds.add(await submit("globex"));

    const total = opts.aJobs + opts.bJobs;
    const bWaits: number[] = [];
    let started = 0;
    let bLastStartRank = 0;
    let done = 0;
    const t0 = performance.now();
    const worker = createWorker({
      db,
      queues: [QUEUE],
      concurrency: opts.concurrency,
      log: silentLogger,
      handlers: {
        "report.generate": async (ctx) => {
          started++;
          if (bIds.has(ctx.job.id)) {
            bWaits.push(performance.now() - t0);
            bLastStartRank = started;
          }
          return null;
        },
      },
      onOutcome: (o) => {
        if (o.status === "reported") done++;
      },
    });
    await worker.start();
    await waitUntil("fairness burn-down", async () => done >= total, 10 * 60_000);
    const seconds = (performance.now() - t0) / 1000;
    await worker.stop();
    return {
      fair: opts.fair,
      aJobs: opts.aJobs,
      bJobs: opts.bJobs,
      bWaitP50: pct(bWaits, 50),
      bWaitP99: pct(bWaits, 99),
      bLastStartRank,
      jobsPerSec: total / seconds,
    };
  } finally {
    await closeDb(db);
  }
}

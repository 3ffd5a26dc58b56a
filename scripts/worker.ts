// `npm run worker`: a worker process running the demo handlers against the
// database of a running `npm start` (or DATABASE_URL).
import { parseArgs } from "node:util";
import { closeDb, connect, databaseUrl } from "../lib/db/client";
import { alertHandlers } from "../lib/alerts/webhook";
import { declaredQueues } from "../lib/jobs/job-types";
import { demoHandlers } from "../lib/worker/demo-handlers";
import { demoSchedules } from "../lib/worker/demo-schedules";
import { consoleLogger } from "../lib/worker/log";
import type { JobOutcome } from "../lib/worker/types";
import { createWorker } from "../lib/worker/worker";

const USAGE = `usage: npm run worker -- [--queues a,b] [--concurrency N] [--id ID] [--drain-ms N] [--verbose]
  --queues       queues to claim from (default: every queue a job type declares)
  --concurrency  jobs run at once (default 8)
  --id           worker id, also the lease owner (default host-pid-xxxx)
  --drain-ms     on SIGTERM, how long in-flight jobs may take to finish (default 30000)
  --verbose      print one line per job outcome
  --demo-schedules  declare the demo's periodic schedules (lib/worker/demo-schedules.ts)
  --metrics-port this worker's own Prometheus metrics at :PORT/metrics (or JOBSCOPE_WORKER_METRICS_PORT;
                 JOBSCOPE_WORKER_METRICS_HOST sets the address, default 127.0.0.1)`;

function options() {
  const { values } = parseArgs({
    options: {
      queues: { type: "string" },
      concurrency: { type: "string", default: "8" },
      id: { type: "string" },
      "drain-ms": { type: "string", default: "30000" },
      verbose: { type: "boolean", short: "v", default: false },
      "demo-schedules": { type: "boolean", default: false },
      "metrics-port": { type: "string", default: process.env.JOBSCOPE_WORKER_METRICS_PORT },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const allQueues = declaredQueues();
  const queues = values.queues
    ? values.queues
        .split(",")
        .map((q) => q.trim())
        .filter(Boolean)
    : allQueues;
  const concurrency = Number(values.concurrency);
  const drainMs = Number(values["drain-ms"]);
  const metricsPort = values["metrics-port"] ? Number(values["metrics-port"]) : undefined;
  const badPort = metricsPort !== undefined && !(Number.isInteger(metricsPort) && metricsPort >= 0 && metricsPort <= 65535);
  if (!Number.isInteger(concurrency) || concurrency < 1 || queues.length === 0 || !(drainMs >= 0) || badPort) {
    console.error(USAGE);
    process.exit(2);
  }
  return { queues, concurrency, drainMs, id: values.id, verbose: values.verbose, demoSchedules: values["demo-schedules"], metricsPort };
}

function describe(o: JobOutcome): string {
  const what = o.status === "reported" ? `${o.event} → ${o.state}` : `${o.status}${o.event ? ` (${o.event})` : ""}`;
  const err = o.error ? ` ${o.error.class}: ${o.error.message.split("\n")[0]}` : "";
  const why = o.status === "refused" && o.reason ? ` — ${o.reason}` : "";
  return `${o.type} ${o.jobId} attempt ${o.attempt}: ${what} in ${o.durationMs}ms${err}${why}`;
}

async function main() {
  const opts = options();
  // A pool sized to the concurrency: every in-flight job reports and heartbeats through it.
  const db = connect(databaseUrl(), { appName: "jobscope-worker", max: Math.min(20, opts.concurrency + 2), genericPlans: true });
  const log = consoleLogger("info");
  const worker = createWorker({
    db,
    id: opts.id,
    queues: opts.queues,
    concurrency: opts.concurrency,
    drainTimeoutMs: opts.drainMs,
    // Jobscope's own jobs beside the demo's: alert deliveries (lib/alerts/webhook.ts).
    handlers: { ...demoHandlers, ...alertHandlers(db) },
    schedules: opts.demoSchedules ? demoSchedules : undefined,
    log,
    // poison.crash demonstrates a worker dying mid-job; here that is the point.
    allowProcessKill: true,
    metricsPort: opts.metricsPort,
    metricsHost: process.env.JOBSCOPE_WORKER_METRICS_HOST || undefined,
    onOutcome: opts.verbose ? (o) => console.log(describe(o)) : undefined,
    // An operator's drain request (the console's Workers page) ends the process exactly as SIGTERM does.
    onDrainRequest: (by) => void shutdown(`drain requested by ${by ?? "an operator"}`),
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      log.warn(`${signal} again: exiting without waiting for in-flight jobs`);
      process.exit(1);
    }
    stopping = true;
    log.info(`${signal}: draining in-flight jobs`);
    await worker.stop();
    await closeDb(db, 2);
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  await worker.start();
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});

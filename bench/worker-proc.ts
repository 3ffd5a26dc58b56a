// One benchmark worker process (scaling runs, and the concurrency-limit test):
// `tsx bench/worker-proc.ts <url> <queue> <concurrency> [handlerMs]`.
// Runs report jobs (no-op, or taking handlerMs each) until SIGTERM, then drains.
import { closeDb, connect } from "../lib/db/client";
import { silentLogger } from "../lib/worker/log";
import { sleep } from "../lib/worker/wakeup";
import { createWorker } from "../lib/worker/worker";

const [url, queue, concurrency, handlerMs] = process.argv.slice(2);
if (!url || !queue) throw new Error("usage: worker-proc.ts <url> <queue> <concurrency> [handlerMs]");
const ms = Number(handlerMs ?? 0);
const db = connect(url, { max: 8, appName: "bench-scale-worker", genericPlans: true });
const worker = createWorker({
  db,
  queues: [queue],
  concurrency: Number(concurrency ?? 24),
  log: silentLogger,
  handlers: { "report.generate": async () => (ms > 0 ? sleep(ms).then(() => null) : null) },
});
await worker.start();
process.stdout.write("ready\n");
process.once("SIGTERM", () => {
  void worker
    .stop()
    .then(() => closeDb(db))
    .then(() => process.exit(0));
});

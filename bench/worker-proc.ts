// One benchmark worker process (scaling runs): `tsx bench/worker-proc.ts <url> <queue> <concurrency>`.
// Runs no-op report jobs until SIGTERM, then drains.
import { connect } from "../lib/db/client";
import { silentLogger } from "../lib/worker/log";
import { createWorker } from "../lib/worker/worker";

const [url, queue, concurrency] = process.argv.slice(2);
if (!url || !queue) throw new Error("usage: worker-proc.ts <url> <queue> <concurrency>");
const sql = connect(url, { max: 8, appName: "bench-scale-worker", genericPlans: true });
const worker = createWorker({
  sql, queues: [queue], concurrency: Number(concurrency ?? 24), log: silentLogger,
  handlers: { "report.generate": async () => null },
});
await worker.start();
process.stdout.write("ready\n");
process.once("SIGTERM", () => {
  void worker.stop().then(() => sql.end()).then(() => process.exit(0));
});

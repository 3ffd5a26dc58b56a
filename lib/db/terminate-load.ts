// A child process for lib/db/driver.test.ts: queries in a loop through the project's own pool
// (lib/db/client.ts) while the test terminates its backends; new pools are opened along the way
// (a fresh connection fetches array types, one of the paths that used to crash). It prints one
// JSON line and exits 0, unless the driver threw outside a query (uncaught exception or
// unhandled rejection), which is exactly what the test looks for.
import { connect } from "./client";
import { sql } from "drizzle-orm";
import { execute } from "./drizzle";

const url = process.env.LOAD_URL ?? "";
// The test ends the run with "stop" on stdin once its storm is over; LOAD_MS bounds it regardless.
const runMs = Number(process.env.LOAD_MS ?? 8000);
const fatal = (kind: string) => (e: unknown) => {
  const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  process.stdout.write(`${JSON.stringify({ died: kind, message })}\n`);
  process.exit(3);
};
process.on("uncaughtException", fatal("uncaughtException"));
process.on("unhandledRejection", fatal("unhandledRejection"));

let ok = 0;
let failed = 0;
let stop = false;
const pools = [connect(url, { max: 6, appName: "jobscope-terminate-load" })];

async function loop(n: number) {
  while (!stop) {
    const db = pools[n % pools.length]!;
    try {
      // A small write (under the driver's 1 KiB batch) and an array parameter: both code paths the crash report names.
      await execute(db, sql`SELECT ${n}::int AS n, ${sql.param([n, n + 1])}::int[] AS a`);
      ok++;
    } catch {
      failed++;
    }
  }
}

// The storm starts when the pool is up: on a loaded machine, importing and connecting can take
// seconds, and a storm timed from the spawn would then hit nothing. "ready" tells the test.
await execute(pools[0]!, sql`SELECT 1`);
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
const loops = Array.from({ length: 16 }, (_, i) => loop(i));
const opener = setInterval(() => pools.push(connect(url, { max: 2, appName: "jobscope-terminate-load" })), 500);
let finishing = false;
async function finish() {
  if (finishing) return;
  finishing = true;
  stop = true;
  clearInterval(opener);
  await Promise.race([Promise.all(loops), new Promise((r) => setTimeout(r, 1000))]);
  // After the storm the pool must work again. A connection killed during the storm may still fail
  // a query or two as it is replaced, so a few tries, each one's failure handled.
  let after: number | null = null;
  for (let i = 0; i < 5 && after === null; i++) {
    after = await execute<{ one: number }>(pools[0]!, sql`SELECT 1 AS one`).then(
      ([row]) => row?.one ?? null,
      () => new Promise<null>((r) => setTimeout(() => r(null), 200)),
    );
  }
  process.stdout.write(`${JSON.stringify({ died: null, ok, failed, after })}\n`);
  process.exit(0);
}
setTimeout(() => void finish(), runMs);
process.stdin.on("data", (d: Buffer) => {
  if (d.toString().includes("stop")) void finish();
});

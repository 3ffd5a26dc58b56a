// `npm run supervisor`: reclaims stale leases and promotes due retries until SIGTERM.
import { closePool, pool } from "../lib/db/client";
import { createSupervisor } from "../lib/supervisor/supervisor";

const staleAfterMs = Number(process.env.JOBSCOPE_STALE_AFTER_MS ?? 10_000);
const verbose = process.argv.includes("--verbose");
const supervisor = createSupervisor({
  db: pool(),
  id: process.env.JOBSCOPE_SUPERVISOR_ID,
  staleAfterMs,
  log: verbose ? (line) => console.log(`[supervisor] ${line}`) : undefined,
});
supervisor.start();
console.log(`[supervisor] ${supervisor.id} watching heartbeats (stale after ${staleAfterMs} ms)`);

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, async () => {
    await supervisor.stop();
    await closePool();
    process.exit(0);
  });
}

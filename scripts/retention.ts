// `npm run retention -- [--days 30] [--batch 5000] [--archive] [--dry-run]`
// Removes terminal jobs that finished more than --days ago, with their run
// records and events, in batches (lib/retention). Run it nightly.
import { parseArgs } from "node:util";
import { closePool, pool } from "../lib/db/client";
import { runRetention } from "../lib/retention/retention";

const { values } = parseArgs({
  options: {
    days: { type: "string", default: process.env.JOBSCOPE_RETENTION_DAYS ?? "30" },
    batch: { type: "string", default: "5000" },
    archive: { type: "boolean", default: false },
    "dry-run": { type: "boolean", default: false },
  },
});

const days = Number(values.days);
const batchSize = Number(values.batch);
try {
  const r = await runRetention(pool(), {
    olderThanDays: days, batchSize, archive: values.archive, dryRun: values["dry-run"],
    log: (line) => console.log(`[retention] ${line}`),
  });
  const what = values["dry-run"] ? "would remove" : "removed";
  console.log(
    `[retention] ${what} ${r.jobs} jobs finished before ${r.cutoff.toISOString()}` +
      (values["dry-run"] ? "" : ` (${r.runs} run records, ${r.events} events, ${r.archived} archived, ${r.batches} batches)`),
  );
  await closePool();
} catch (e) {
  console.error(`[retention] ${e instanceof Error ? e.message : String(e)}`);
  await closePool();
  process.exit(1);
}

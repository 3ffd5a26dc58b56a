// `npm run retention -- [--days 30] [--batch 5000] [--archive] [--dry-run] [--no-drop]`
// Removes terminal jobs that finished more than --days ago, with their run records and
// events (lib/retention): drops each job_events day partition wholly older than the cutoff
// whose jobs are all gone, and keeps the next days' partitions created. Run it nightly,
// as the database owner (the runtime roles cannot drop partitions).
import { parseArgs } from "node:util";
import { closePool, pool } from "../lib/db/client";
import { ensureEventPartitions } from "../lib/db/partitions";
import { runRetention } from "../lib/retention/retention";

const { values } = parseArgs({
  options: {
    days: { type: "string", default: process.env.JOBSCOPE_RETENTION_DAYS ?? "30" },
    batch: { type: "string", default: "5000" },
    archive: { type: "boolean", default: false },
    "dry-run": { type: "boolean", default: false },
    "no-drop": { type: "boolean", default: false },
  },
});

const days = Number(values.days);
const batchSize = Number(values.batch);
const dryRun = values["dry-run"];
try {
  const r = await runRetention(pool(), {
    olderThanDays: days, batchSize, archive: values.archive, dryRun, dropPartitions: !values["no-drop"],
    log: (line) => console.log(`[retention] ${line}`),
  });
  const what = dryRun ? "would remove" : "removed";
  console.log(
    `[retention] ${what} ${r.jobs} jobs finished before ${r.cutoff.toISOString()} (${r.runs} run records` +
      (dryRun ? ")" : `, ${r.events} events deleted, ${r.archived} archived, ${r.batches} batches)`),
  );
  const verb = dryRun ? "would drop" : "dropped";
  console.log(`[retention] event partitions: ${verb} ${r.partitionsDropped} (${r.eventsDropped} events), kept ${r.partitionsKept}`);
  for (const p of r.partitions.filter((v) => v.action === "kept")) console.log(`[retention]   kept ${p.name}: ${p.reason}`);
  if (!dryRun) {
    const created = await ensureEventPartitions(pool());
    if (created > 0) console.log(`[retention] created ${created} upcoming day partition(s)`);
  }
  await closePool();
} catch (e) {
  console.error(`[retention] ${e instanceof Error ? e.message : String(e)}`);
  await closePool();
  process.exit(1);
}

// `npm run retention -- [--days 30] [--batch 5000] [--archive] [--dry-run] [--no-drop]`
// Removes finished jobs (no live row) whose last transition is more than --days old, with
// their whole history: catalog row, attempts and job_log rows (lib/retention). Drops each
// job_log day partition wholly older than the cutoff whose jobs are all gone, and keeps the
// next days' partitions created. --archive keeps one JSON document per removed job in
// job_archive (its catalog row, attempts and events). Run it nightly, as the database owner
// (the runtime roles cannot drop partitions).
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
    olderThanDays: days,
    batchSize,
    archive: values.archive,
    dryRun,
    dropPartitions: !values["no-drop"],
    log: (line) => console.log(`[retention] ${line}`),
  });
  const what = dryRun ? "would remove" : "removed";
  console.log(
    `[retention] ${what} ${r.jobs} jobs finished before ${r.cutoff.toISOString()} (${r.runs} attempts, ${r.events} job_log rows` +
      (dryRun ? ")" : ` deleted, ${r.archived} archived, ${r.batches} batches)`),
  );
  const verb = dryRun ? "would drop" : "dropped";
  console.log(`[retention] job_log partitions: ${verb} ${r.partitionsDropped} (${r.eventsDropped} rows), kept ${r.partitionsKept}`);
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

// `npm run check:explanations`: explain every job of a database (a running `npm start`'s, or
// DATABASE_URL — an owner role, which sees every tenant) as staff and as its tenant, check every
// claim against the data (lib/insight/check.ts), and print what was found. Exits 1 on a false claim,
// a tenant's sentence that names what a tenant must not read, or a poison job that was a bystander.
//   --samples N   also print N explanations, a different lead cause each first, staff and tenant words
//   --limit N     only the newest N jobs
import { parseArgs } from "node:util";
import { closeDb, connect, databaseUrl } from "../lib/db/client";
import { checkAll } from "../lib/insight/check";
import { explainJob } from "../lib/insight/context";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

const { values: args } = parseArgs({ options: { samples: { type: "string", default: "0" }, limit: { type: "string" } } });
const db = connect(databaseUrl(), { max: 4, appName: "jobscope-check" });
const t0 = Date.now();
const ids = args.limit
  ? (await execute<{ id: string }>(db, sql`SELECT id FROM job_catalog ORDER BY created_at DESC LIMIT ${Number(args.limit)}`)).map((r) => r.id)
  : undefined;
const report = await checkAll(db, (id, audience, asOf) => explainJob(db, id, { audience, asOf }), { ids, log: (l) => console.log(l) });
console.log(`checked ${report.jobs} jobs, ${report.claims} claims in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
console.log(`claims by kind: ${JSON.stringify(report.byKind)}`);
console.log(`false claims: ${report.violations.length}; tenant sentences naming what is not theirs: ${report.tenantLeaks.length}`);
const byKind = new Map<string, number>();
for (const v of report.violations) byKind.set(v.claim, (byKind.get(v.claim) ?? 0) + 1);
if (byKind.size) console.log(`false claims by kind: ${JSON.stringify(Object.fromEntries(byKind))}`);
for (const v of report.violations.slice(0, 20)) console.log(`  ${v.jobId} ${v.claim}: ${v.why}`);
for (const l of report.tenantLeaks.slice(0, 10)) console.log(`  tenant ${l.jobId} names "${l.found}": ${l.text}`);

// Poison against what the demo knows: its poison.crash jobs kill their worker; nothing else does.
const [p] = await execute<{ crashers: number; poisoned: number; poisonedCrashers: number; rescued: number; bystandersLost: number }>(
  db,
  sql`
  SELECT (SELECT count(*)::int FROM job_catalog WHERE type = 'poison.crash') AS crashers,
         (SELECT count(DISTINCT job_id)::int FROM job_attempts WHERE error_class = 'PoisonJob') AS poisoned,
         (SELECT count(DISTINCT a.job_id)::int FROM job_attempts a JOIN job_catalog c ON c.id = a.job_id WHERE a.error_class = 'PoisonJob' AND c.type = 'poison.crash') AS poisoned_crashers,
         (SELECT count(*)::int FROM job_log WHERE event = 'rescue') AS rescued,
         (SELECT count(*)::int FROM job_attempts WHERE error_class = 'WorkerLost') AS bystanders_lost`,
);
console.log(
  `poison: ${p!.poisoned} jobs stopped as poison, ${p!.poisonedCrashers} of them poison.crash (of ${p!.crashers} poison.crash jobs), ` +
    `${p!.poisoned - p!.poisonedCrashers} bystanders; ${p!.bystandersLost} attempts lost as bystanders, ${p!.rescued} of them handed back refunded`,
);

const samples = Number(args.samples);
if (samples > 0) {
  // One per lead cause first, then one per cause, type and state, until there are `samples`.
  const pool = ids ?? (await execute<{ id: string }>(db, sql`SELECT id FROM job_catalog ORDER BY created_at DESC LIMIT 2000`)).map((r) => r.id);
  const seen = new Set<string>();
  const printed = new Set<string>();
  for (const keyOf of [(c: string) => c, (c: string, type: string, state: string) => `${c}/${type}/${state}`]) {
    for (const id of pool) {
      if (printed.size >= samples) break;
      if (printed.has(id)) continue;
      const staff = await explainJob(db, id, { audience: "staff" });
      if (!staff) continue;
      const key = keyOf(staff.explanation.cause, staff.detail.job.type, staff.detail.job.state);
      if (seen.has(key)) continue;
      seen.add(key);
      printed.add(id);
      const tenant = await explainJob(db, id, { audience: "tenant" });
      console.log(`\n# ${staff.explanation.cause} — ${staff.detail.job.type}, ${staff.detail.job.state}, job ${id}`);
      console.log(`staff:  [${staff.words.chip}] ${staff.words.summary}${staff.words.next ? ` What next: ${staff.words.next}` : ""}`);
      console.log(`tenant: [${tenant!.words.chip}] ${tenant!.words.summary}${tenant!.words.next ? ` What next: ${tenant!.words.next}` : ""}`);
    }
  }
}
await closeDb(db);
process.exit(report.violations.length + report.tenantLeaks.length > 0 ? 1 : 0);

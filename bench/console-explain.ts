// EXPLAIN (ANALYZE, BUFFERS) and timings of the console's reads on generated data, as the staff
// role and as a tenant, through the library functions the routes call:
//   npx tsx bench/console-explain.ts --jobs 10000000            (a fresh embedded server, generated)
//   npx tsx bench/console-explain.ts --url <owner url> [--secret s]   (a database generate() filled)
// Each request runs in the transaction its route opens (lib/db/scope.ts) on the `jobscope_app`
// role, so row-level security is on: staff switch to jobscope_staff, a tenant keeps the tenant
// policy. Timings: p50/p95 of --samples sequential runs after three warm-ups. Plans: every
// statement a run sends (postgres.js's debug hook) explained with its parameters, in the same
// scope, in a transaction that is rolled back. Markdown on stdout (docs/benchmarks.md).
import { parseArgs } from "node:util";
import { loadJobs } from "../app/jobs/load";
import { closeDb, connect, type Tx } from "../lib/db/client";
import { provisionRoles } from "../lib/db/roles";
import { withScope, type Scope } from "../lib/db/scope";
import { encodeCursor, parseJobFilters } from "../lib/jobs/filters";
import { countByState, getJobDetail } from "../lib/jobs/queries";
import { transition } from "../lib/jobs/transition";
import { pickTargets } from "./console";
import { endReport, explainingApp, explainOptions, generatedDatabase, runMain } from "./explain";
import { checkSample } from "./generate";
import { fmt, pct } from "./lib";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

const { values: args } = parseArgs({
  options: { ...explainOptions("console-explain"), samples: { type: "string", default: "30" }, tenant: { type: "string", default: "acme" } },
});
const log = (s: string) => console.error(`[console-explain] ${new Date().toISOString().slice(11, 19)} ${s}`);

type Probe = { name: string; scope: Scope; run: (tx: Tx, i: number) => Promise<unknown>; write?: boolean };

async function main() {
  const { owner, stop } = await generatedDatabase({ url: args.url, jobs: args.jobs, name: "console_explain", log }, async (db) => {
    return `integrity check: ${(await checkSample(db, 200)).length} problems`;
  });
  await provisionRoles(owner, args.secret);
  const tenant = args.tenant;
  const ownerDb = connect(owner, { max: 1 });
  const staffTargets = await pickTargets(ownerDb, Number(args.samples));
  const tenantTargets = await pickTargets(ownerDb, Number(args.samples), tenant);
  const t = {
    deep: staffTargets.deep && encodeCursor(staffTargets.deep),
    deepTenant: tenantTargets.deep && encodeCursor(tenantTargets.deep),
    many: staffTargets.many?.id,
    manyTenant: tenantTargets.many?.id,
    dead: staffTargets.dead,
  };
  const [sizes] = await execute<{ jobs: number; live: number; attempts: number; log: number }>(
    ownerDb,
    sql`
    SELECT (SELECT reltuples::bigint FROM pg_class WHERE relname = 'job_catalog')::int AS jobs,
           (SELECT count(*) FROM jobs_live)::int AS live,
           (SELECT reltuples::bigint FROM pg_class WHERE relname = 'job_attempts')::int AS attempts,
           (SELECT sum(reltuples)::bigint FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid WHERE i.inhparent = 'job_log'::regclass)::int AS log`,
  );
  await closeDb(ownerDb);

  const { app, explain } = explainingApp(owner, args.secret);
  const staff: Scope = { all: true };
  const mine: Scope = { tenantId: tenant };
  const page = (q: Record<string, string | undefined>) => (tx: Tx) => loadJobs(tx, parseJobFilters(q), false);
  const probes: Probe[] = [
    { name: "first list page + tab counts", scope: staff, run: page({}) },
    { name: "first list page + tab counts", scope: mine, run: page({ tenant }) },
    { name: "deep keyset page (75% down) + tab counts", scope: staff, run: page({ after: t.deep }) },
    { name: "deep keyset page (75% down) + tab counts", scope: mine, run: page({ tenant, after: t.deepTenant }) },
    { name: "succeeded tab, tenant + type, + tab counts", scope: staff, run: page({ state: "succeeded", tenant, type: "media.render" }) },
    { name: "succeeded tab, tenant + type, + tab counts", scope: mine, run: page({ state: "succeeded", tenant, type: "media.render" }) },
    // The slow ones first, and "took longer than" (both read the filter's newest SCAN_BUDGET jobs).
    { name: "sorted by duration, longest first", scope: staff, run: page({ sort: "duration" }) },
    { name: "sorted by duration, longest first", scope: mine, run: page({ tenant, sort: "duration" }) },
    { name: "took longer than 10m, type filter", scope: staff, run: page({ type: "export.tenant_data", longerThan: "10m" }) },
    { name: "took longer than 10m, type filter", scope: mine, run: page({ tenant, type: "export.tenant_data", longerThan: "10m" }) },
    { name: "counts (GET /api/counts)", scope: staff, run: (tx) => countByState(tx, {}) },
    { name: "counts (GET /api/counts)", scope: mine, run: (tx) => countByState(tx, { tenant }) },
  ];
  if (t.many) probes.push({ name: "job detail, 20 attempts", scope: staff, run: (tx) => getJobDetail(tx, t.many!) });
  if (t.manyTenant) probes.push({ name: "job detail, 20 attempts", scope: mine, run: (tx) => getJobDetail(tx, t.manyTenant!) });
  const samples = Number(args.samples);
  if (t.dead.length > 4) {
    probes.push({
      name: "replay a dead job (transition)",
      scope: staff,
      write: true,
      run: (tx, i) => {
        const job = t.dead[i % t.dead.length]!;
        return transition(tx, {
          jobId: job.id,
          event: "replay",
          actor: { kind: "operator", id: "bench-operator" },
          expected: { state: "dead", version: job.stateVersion },
        });
      },
    });
  }

  const who = (s: Scope) => ("all" in s ? "staff" : `tenant ${s.tenantId}`);
  const rows: string[] = [];
  const plans: string[] = [];
  for (const p of probes) {
    const times: number[] = [];
    for (let i = 0; i < samples + 3; i++) {
      const t0 = performance.now();
      await withScope(app, p.scope, (tx) => p.run(tx, i));
      if (i >= 3) times.push(performance.now() - t0);
    }
    rows.push(`| ${p.name} | ${who(p.scope)} | ${fmt(pct(times, 50), 1)} | ${fmt(pct(times, 95), 1)} |`);
    log(`${p.name} (${who(p.scope)}): p50 ${fmt(pct(times, 50), 1)} ms, p95 ${fmt(pct(times, 95), 1)} ms`);
    // One more run, recorded; then each of its statements explained in the same scope, rolled back.
    const replayIndex = samples + 3;
    const explained = await explain(p.scope, (tx) => p.run(tx, replayIndex));
    plans.push(`#### ${p.name} — ${who(p.scope)}\n\n\`\`\`\n${explained.join("\n\n")}\n\`\`\``);
  }
  await closeDb(app);
  console.log(`Data: ${fmt(sizes!.jobs)} jobs (${fmt(sizes!.live)} live), ${fmt(sizes!.attempts)} attempts, ${fmt(sizes!.log)} job_log rows.\n`);
  console.log("| request | as | p50 ms | p95 ms |\n|---|---|---:|---:|");
  console.log(rows.join("\n"));
  await endReport({ plans, keep: args.keep, owner, stop, log });
}

runMain(main);

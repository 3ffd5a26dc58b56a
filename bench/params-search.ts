// The jobs list's search by params at scale: job_catalog_params_idx (GIN,
// jsonb_path_ops, drizzle/0024) — the list's time for a selective, a middling and an unselective
// search, as staff and as a tenant, with each statement's EXPLAIN ANALYZE; the index's size; and what
// it adds to a submit (enqueue() per job with and without the index, in the same run).
//   npx tsx bench/params-search.ts --jobs 10000000           (a fresh embedded server, generated)
//   npx tsx bench/params-search.ts --url <owner url>         (a database this script generated, --keep)
// Every job's params get `customer_id` (200,000 customers: 1 job in 200,000), `campaign` (1,000
// campaigns: 1 in 1,000) and `plan` ("pro" for every other job). Markdown on stdout (docs/benchmarks.md).
import { parseArgs } from "node:util";
import { loadJobs } from "../app/jobs/load";
import { closeDb, connect, type Tx } from "../lib/db/client";
import { provisionRoles } from "../lib/db/roles";
import { withScope, type Scope } from "../lib/db/scope";
import { enqueue } from "../lib/jobs/enqueue";
import { parseJobFilters } from "../lib/jobs/filters";
import { parseParamsFilter } from "../lib/jobs/params-filter";
import { listJobs } from "../lib/jobs/queries";
import { endReport, explainingApp, explainOptions, generatedDatabase, runMain } from "./explain";
import { fmt, mb, pct } from "./lib";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

const { values: args } = parseArgs({
  options: {
    ...explainOptions("params-search"),
    samples: { type: "string", default: "15" },
    submits: { type: "string", default: "3000" },
    "skip-searches": { type: "boolean", default: false },
  },
});
const log = (s: string) => console.error(`[params-search] ${new Date().toISOString().slice(11, 19)} ${s}`);

const EXTRA = `jsonb_build_object('customer_id', (c.i * 7919) % 200000, 'campaign', 'c' || ((c.i / 20) % 1000), 'plan', CASE WHEN c.i % 2 = 0 THEN 'pro' ELSE 'free' END)`;
const SEARCHES = [
  { name: "selective: params.customer_id = 42", params: "params.customer_id = 42" },
  { name: "middling: params.campaign = c7", params: "params.campaign = c7" },
  { name: "unselective: params.plan = pro", params: "params.plan = pro" },
  { name: 'no match: {"customer_id": -1}', params: '{"customer_id": -1}' },
];

async function main() {
  const { owner, stop } = await generatedDatabase({ url: args.url, jobs: args.jobs, name: "params_search", log, extraParams: EXTRA });
  await provisionRoles(owner, args.secret);
  const ownerDb = connect(owner, { max: 1 });
  const [info] = await execute<{ jobs: number; table: number; index: number; tenant: string }>(
    ownerDb,
    sql`
    SELECT (SELECT reltuples::bigint FROM pg_class WHERE relname = 'job_catalog')::bigint AS jobs,
           pg_table_size('job_catalog') AS table, pg_relation_size('job_catalog_params_idx') AS index,
           (SELECT tenant_id FROM job_catalog WHERE params @> '{"customer_id": 42}' LIMIT 1) AS tenant`,
  );
  const matches: Record<string, number> = {};
  for (const s of SEARCHES) {
    const p = parseParamsFilter(s.params);
    if (!p.ok) throw new Error(p.message);
    const json = p.json;
    const [{ n }] = (await execute(ownerDb, sql`SELECT count(*)::int AS n FROM job_catalog WHERE params @> ${json}::text::jsonb`)) as unknown as [
      { n: number },
    ];
    matches[s.name] = n;
  }

  const { app, explain } = explainingApp(owner, args.secret);
  const tenant = info!.tenant ?? "acme";
  const scopes: Scope[] = [{ all: true }, { tenantId: tenant }];
  const who = (s: Scope) => ("all" in s ? "staff" : `tenant ${s.tenantId}`);
  const samples = Number(args.samples);
  const rows: string[] = [];
  const plans: string[] = [];
  for (const s of args["skip-searches"] ? [] : SEARCHES) {
    for (const scope of scopes) {
      const filters = parseJobFilters({ params: s.params, ...("all" in scope ? {} : { tenant }) });
      const time = async (fn: (tx: Tx) => Promise<unknown>) => {
        const times: number[] = [];
        for (let i = 0; i < samples + 2; i++) {
          const t0 = performance.now();
          await withScope(app, scope, fn);
          if (i >= 2) times.push(performance.now() - t0);
        }
        return times;
      };
      const list = await time((tx) => listJobs(tx, filters));
      const page = await time((tx) => loadJobs(tx, filters, false));
      // The list's statement, recorded and explained in the same scope.
      const explained = await explain(scope, (tx) => listJobs(tx, filters));
      const explainMs = explained.map((e) => /Execution Time: ([\d.]+) ms/.exec(e)?.[1] ?? "?").join(" + ");
      const n = await withScope(app, scope, (tx) => listJobs(tx, filters));
      rows.push(
        `| ${s.name} | ${fmt(matches[s.name]!)} | ${who(scope)} | ${n.jobs.length} | ${explainMs} | ${fmt(pct(list, 50), 1)} | ${fmt(pct(list, 95), 1)} | ${fmt(pct(page, 50), 1)} |`,
      );
      log(
        `${s.name} (${who(scope)}): list p50 ${fmt(pct(list, 50), 1)} ms, EXPLAIN ANALYZE ${explainMs} ms, page + counts p50 ${fmt(pct(page, 50), 1)} ms`,
      );
      plans.push(`#### ${s.name} — ${who(scope)}\n\n\`\`\`\n${explained.join("\n\n")}\n\`\`\``);
    }
  }
  await closeDb(app);

  // What the index adds to a submit: enqueue() one job per transaction, as the API does, with the
  // index, without it, and with it again (rebuilt, timed), in turn in the same run.
  const submits = Number(args.submits);
  if (submits === 0) {
    // The searches only (a database measured before, --url).
    await closeDb(ownerDb);
    console.log(rows.join("\n"));
    await endReport({ plans, keep: args.keep, owner, stop, log });
    return;
  }
  const submit = async (label: string) => {
    const t0 = performance.now();
    for (let i = 0; i < submits; i++) {
      await enqueue(
        ownerDb,
        // Four keys, one of them distinct per job (a new GIN key each time), as the generated jobs' params have.
        {
          tenantId: tenant,
          type: "export.tenant_data",
          queue: "bench-submit",
          params: { dataset: "orders", rows: 1_000_000 + i, chunkRows: 10_000, format: "csv" },
        },
        { kind: "api", id: "bench" },
      );
    }
    const us = ((performance.now() - t0) * 1000) / submits;
    // A GIN index defers its entries to a pending list (fastupdate) that a later insert past
    // gin_pending_list_limit, or autovacuum, merges: that merge is part of the index's cost per job.
    const t1 = performance.now();
    const [hasIndex] = await execute(ownerDb, sql`SELECT 1 FROM pg_class WHERE relname = 'job_catalog_params_idx'`);
    if (hasIndex) await execute(ownerDb, sql`SELECT gin_clean_pending_list('job_catalog_params_idx')`);
    const mergeUs = hasIndex ? ((performance.now() - t1) * 1000) / submits : 0;
    log(`submit ${label}: ${fmt(us)} µs per job, + ${fmt(mergeUs)} µs per job to merge the GIN pending list`);
    return us + mergeUs;
  };
  await submit("warm-up (not counted)");
  const withIndex = await submit("with the index");
  await execute(ownerDb, sql`DROP INDEX job_catalog_params_idx`);
  const without = await submit("without the index");
  const t0 = performance.now();
  await ownerDb.transaction(async (tx) => {
    await execute(tx, sql`SET LOCAL maintenance_work_mem = '256MB'`);
    await execute(tx, sql`CREATE INDEX job_catalog_params_idx ON job_catalog USING gin (params jsonb_path_ops)`);
  });
  const buildS = (performance.now() - t0) / 1000;
  const withAgain = await submit("with the index, rebuilt");
  const [after] = await execute<{ index: number }>(ownerDb, sql`SELECT pg_relation_size('job_catalog_params_idx') AS index`);
  await closeDb(ownerDb);

  console.log(
    `Data: ${fmt(Number(info!.jobs))} jobs; job_catalog ${mb(Number(info!.table))}; job_catalog_params_idx ${mb(Number(info!.index))} after the generator's sorted build, ${mb(Number(after!.index))} rebuilt (CREATE INDEX: ${fmt(buildS)} s).\n`,
  );
  console.log(
    "| search | matches | as | rows | EXPLAIN ANALYZE ms | list p50 ms | list p95 ms | page + tab counts p50 ms |\n|---|---:|---|---:|---:|---:|---:|---:|",
  );
  console.log(rows.join("\n"));
  console.log(
    `\nSubmit (enqueue(), one job per transaction, ${fmt(submits)} jobs each): with the index ${fmt(withIndex)} µs per job, without ${fmt(without)} µs, with it again ${fmt(withAgain)} µs (with the index: its pending list's merge included).\n`,
  );
  await endReport({ plans, keep: args.keep, owner, stop, log });
}

runMain(main);

// `npx tsx bench/statement-parts.ts [--block 1000] [--reps 4]`
//
// Prices the parts of a one-job worker round (report a finish, claim and start the next job) on
// ONE connection, where the noise of 24 backends on two cores does not hide a 20 µs part. The
// statement is the worker's own (captured from lib/jobs/round.ts as it prepares it); each variant
// is a copy with one part removed or changed, run as its own prepared statement (generic plan, as
// the worker's). The variants run in alternating blocks of `--block` jobs after a warm-up block;
// the figure is the backend's CPU per job from /proc (10 ms ticks: 10 µs per job at 1,000 jobs),
// the median over `--reps` blocks, with every block printed. Not product code: a removed part is
// one the product needs; the point is what each costs. Embedded PostgreSQL only (it reads /proc).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { sql, type Query } from "drizzle-orm";
import { closeDb, connect, type Pool } from "../lib/db/client";
import { execute } from "../lib/db/drizzle";
import { claimValues, type ClaimOptions } from "../lib/jobs/claim";
import { workerRound } from "../lib/jobs/round";
import type { ClaimedJob } from "../lib/jobs/types";
import { moveValues, partsOf, plan } from "../lib/jobs/write";
import { prefillJobscope } from "./generate";
import { BENCH_QUEUE } from "./engines";
import { benchServer, freshDb } from "./lib";

type Variant = { name: string; edit?: (text: string) => string; before?: string; after?: string };

const cut = (from: string | RegExp, to: string) => (text: string) => {
  const out = text.replace(from, to);
  if (out === text) throw new Error(`the statement no longer has ${String(from).slice(0, 80)}`);
  return out;
};

const VARIANTS: Variant[] = [
  { name: "the worker's statement" },
  { name: "triggers off", before: "SET session_replication_role = replica", after: "SET session_replication_role = origin" },
  {
    name: "no tenant check",
    before: "ALTER TABLE job_attempts DISABLE TRIGGER job_attempts_tenant_check",
    after: "ALTER TABLE job_attempts ENABLE TRIGGER job_attempts_tenant_check",
  },
  { name: "no attempt row", edit: cut(/att AS \([\s\S]*?WHERE outcome IS NOT NULL\),/, "") },
  {
    name: "no lost-report answer",
    edit: cut(/\(SELECT array_agg\(id\) FROM i WHERE NOT EXISTS \(SELECT FROM moved m WHERE m\.id = i\.id\)\)/, "NULL::uuid[]"),
  },
  // A part's parameter stays, typed (and the answer the same): the statement's values are the worker's.
  {
    name: "no cap flag",
    edit: cut(/EXISTS \(SELECT FROM queues WHERE name = \((\$\d+)::text\[\]\)\[1\] AND concurrency_limit IS NOT NULL\)/, "$1::text[] IS NULL"),
  },
  {
    name: "no queue settings read",
    edit: cut(/AND NOT EXISTS \(SELECT FROM queues s WHERE s\.name = \((\$\d+)::text\[\]\)\[1\][^\n]*\n/, "AND $1::text[] IS NOT NULL\n"),
  },
];

const { values: args } = parseArgs({ options: { block: { type: "string", default: "1000" }, reps: { type: "string", default: "4" } } });
const BLOCK = Number(args.block);
const REPS = Number(args.reps);
const WORKER = "w-parts";

const server = await benchServer(".data/bench-parts-pg", () => {});
try {
  const url = await freshDb(server.adminUrl, "bench_parts", { jobscope: true });
  await prefillJobscope(url, BLOCK * (REPS + 1) * VARIANTS.length + 10);
  const db: Pool = connect(url, { max: 1, genericPlans: true });
  // The worker's round statement, as lib/db/drizzle.ts `prepared()` hands it to the driver.
  const session = (db as unknown as { _: { session: { prepareQuery: (...a: unknown[]) => { execute: (v: unknown) => Promise<unknown> } } } })._
    .session;
  const prepare = session.prepareQuery.bind(session);
  const seen = new Map<string, Query>();
  session.prepareQuery = (q: unknown, ...rest: unknown[]) => (seen.set(rest[1] as string, q as Query), prepare(q, ...rest));
  const claim: ClaimOptions = { workerId: WORKER, queues: [BENCH_QUEUE], limit: 1, startNow: 1, lean: true };
  const report = (j: ClaimedJob) => ({
    jobId: j.id,
    event: "finish" as const,
    actor: { kind: "worker" as const, id: WORKER },
    expected: { state: j.state, version: j.stateVersion },
    attempt: j.attempt,
  });
  let held = (await workerRound(db, WORKER, [], claim, true)).claimed[0]!;
  held = (await workerRound(db, WORKER, [report(held)], claim, true)).claimed[0]!;
  const [key, query] = [...seen].find(([k]) => k.startsWith("jobscope_round_") && k.includes("m"))!;
  const statements = VARIANTS.map((v, i) => prepare({ ...query, sql: v.edit ? v.edit(query.sql) : query.sql }, undefined, `parts_${i}`, false));
  const { pid } = (await execute<{ pid: number }>(db, sql`SELECT pg_backend_pid() AS pid`))[0]!;
  // utime + stime of the backend, in µs.
  const cpu = () => {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) * 10_000;
  };
  const perJob = VARIANTS.map(() => [] as number[]);
  for (let rep = 0; rep <= REPS; rep++) {
    for (let i = 0; i < VARIANTS.length; i++) {
      const v = VARIANTS[i]!;
      // Each block on a table just vacuumed: the dead rows of the blocks before (a claimed job's old
      // version, a finished job's row) would make every later block dearer than the one before.
      await execute(db, sql`VACUUM jobs_live`);
      if (v.before) await execute(db, sql.raw(v.before));
      const c0 = cpu();
      for (let k = 0; k < BLOCK; k++) {
        const planned = plan([report(held)]);
        const rows = (await statements[i]!.execute({ ...moveValues(planned, partsOf(planned, true)), ...claimValues(claim) })) as {
          claimed: [string, string, string, string, number, ClaimedJob["state"], number, number, number][] | null;
          lost: string[] | null;
        }[];
        const c = rows[0]?.claimed?.[0];
        if (!c || rows[0]!.lost?.length) throw new Error(`${v.name}: the round did not apply its report or claimed nothing`);
        held = { ...held, id: c[0], state: c[5], attempt: c[6], stateVersion: c[8] };
      }
      const used = cpu() - c0;
      if (v.after) await execute(db, sql.raw(v.after));
      if (rep > 0) perJob[i]!.push(used / BLOCK);
    }
  }
  await closeDb(db);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const base = median(perJob[0]!);
  console.log(`## The one-job round's parts (\`${key}\`), one connection, ${BLOCK} jobs a block, ${REPS} blocks each after a warm-up\n`);
  console.log("| variant | backend CPU µs / job (median) | vs the worker's | each block |");
  console.log("| --- | ---: | ---: | --- |");
  for (let i = 0; i < VARIANTS.length; i++) {
    const m = median(perJob[i]!);
    console.log(
      `| ${VARIANTS[i]!.name} | ${Math.round(m)} | ${i === 0 ? "" : `${m - base > 0 ? "+" : ""}${Math.round(m - base)}`} | ${perJob[i]!.map(Math.round).join(", ")} |`,
    );
  }
} finally {
  await server.stop();
}

// `npx tsx bench/statement-parts.ts [--block 1000] [--reps 4] [--inflight 1] [--connections N]`
//
// Prices the parts of a one-job worker round (report a finish, claim and start the next job). The
// statement is the worker's own (captured from lib/jobs/round.ts as it prepares it); each variant
// is a copy with one part removed or changed, run as its own prepared statement (generic plan, as
// the worker's). The variants run in alternating blocks of `--block` jobs after a warm-up block;
// the figure is the median over `--reps` blocks of the CPU per job, with every block printed.
// - `--inflight 1` (the default): on ONE connection, where the noise of 24 backends on two cores
//   does not hide a 20 µs part; the backend's CPU from /proc (10 ms ticks: 10 µs a job at 1,000).
// - `--inflight 24`: as an unbatched worker sends them, that many rounds in flight pipelined on
//   `--connections` (default one per four, lib/db/lanes.ts); the whole server's CPU, which counts
//   what contention adds and what a part costs other backends.
// Not product code: a removed part is one the product needs; the point is what each costs.
// Embedded PostgreSQL only (it reads /proc).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { sql, type Query } from "drizzle-orm";
import { closeDb, connect, type Pool } from "../lib/db/client";
import { execute, pgError } from "../lib/db/drizzle";
import { claimValues, type ClaimOptions } from "../lib/jobs/claim";
import { workerRound } from "../lib/jobs/round";
import type { ClaimedJob } from "../lib/jobs/types";
import { moveValues, partsOf, plan } from "../lib/jobs/write";
import { prefillJobscope } from "./generate";
import { BENCH_QUEUE } from "./engines";
import { benchServer, freshDb, pgCpuUs } from "./lib";

// `checks`: the variant runs with the two tables' CHECK constraints dropped, or merged into one per
// table (the same conditions), and put back after its block.
type Variant = { name: string; edit?: (text: string) => string; before?: string; after?: string; checks?: "off" | "merged" };

const cut = (from: string | RegExp, to: string) => (text: string) => {
  const out = text.replace(from, to);
  if (out === text) throw new Error(`the statement no longer has ${String(from).slice(0, 80)}`);
  return out;
};

const VARIANTS: Variant[] = [
  { name: "the worker's statement" },
  {
    // For every connection (a SET would reach one of a pool's): the statement's two tables' triggers.
    name: "triggers off",
    before: "ALTER TABLE jobs_live DISABLE TRIGGER USER; ALTER TABLE job_attempts DISABLE TRIGGER USER",
    after: "ALTER TABLE jobs_live ENABLE TRIGGER USER; ALTER TABLE job_attempts ENABLE TRIGGER USER",
  },
  {
    name: "no tenant check",
    before: "ALTER TABLE job_attempts DISABLE TRIGGER job_attempts_tenant_check",
    after: "ALTER TABLE job_attempts ENABLE TRIGGER job_attempts_tenant_check",
  },
  // PostgreSQL reads a written table's CHECK constraints from their stored text at every statement
  // (ExecRelCheck, as it does a trigger's WHEN clause): what the two tables' checks cost a round.
  { name: "no CHECK constraints", checks: "off" },
  // …by their conditions or by their number (each read and prepared on its own)?
  { name: "CHECK constraints merged, one per table", checks: "merged" },
  { name: "no attempt row", edit: cut(/att AS \([\s\S]*?FROM moved WHERE [^\n]*IS NOT NULL\),/, "") },
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

const { values: args } = parseArgs({
  options: {
    block: { type: "string", default: "1000" },
    reps: { type: "string", default: "4" },
    inflight: { type: "string", default: "1" },
    connections: { type: "string" },
  },
});
const BLOCK = Number(args.block);
const REPS = Number(args.reps);
const INFLIGHT = Math.max(1, Number(args.inflight));
const CONNECTIONS = Math.max(1, Number(args.connections ?? Math.ceil(INFLIGHT / 4)));
const WORKER = "w-parts";

const server = await benchServer(".data/bench-parts-pg", () => {});
try {
  const url = await freshDb(server.adminUrl, "bench_parts", { jobscope: true });
  await prefillJobscope(url, BLOCK * (REPS + 1) * VARIANTS.length + INFLIGHT + 10);
  const db: Pool = connect(url, { max: 1, genericPlans: true });
  const checks = await execute<{ rel: string; name: string; def: string }>(
    db,
    sql`SELECT conrelid::regclass::text AS rel, conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
         WHERE contype = 'c' AND conrelid IN ('jobs_live'::regclass, 'job_attempts'::regclass)`,
  );
  const tables = [...new Set(checks.map((c) => c.rel))];
  const merged = tables.map((rel) => {
    const conditions = checks.filter((c) => c.rel === rel).map((c) => c.def.replace(/^CHECK /, ""));
    return {
      add: `ALTER TABLE ${rel} ADD CONSTRAINT ${rel}_merged CHECK (${conditions.join(" AND ")})`,
      drop: `ALTER TABLE ${rel} DROP CONSTRAINT ${rel}_merged`,
    };
  });
  for (const v of VARIANTS.filter((v) => v.checks)) {
    const drop = checks.map((c) => `ALTER TABLE ${c.rel} DROP CONSTRAINT ${c.name}`);
    const add = checks.map((c) => `ALTER TABLE ${c.rel} ADD CONSTRAINT ${c.name} ${c.def}`);
    v.before = [...drop, ...(v.checks === "merged" ? merged.map((m) => m.add) : [])].join("; ");
    v.after = [...(v.checks === "merged" ? merged.map((m) => m.drop) : []), ...add].join("; ");
  }
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
  // The rounds run on `db` itself (one connection) or on a pool of CONNECTIONS, each variant
  // prepared on it as its own statement.
  const runner: Pool = INFLIGHT === 1 ? db : connect(url, { max: CONNECTIONS, genericPlans: true });
  const onRunner =
    INFLIGHT === 1 ? prepare : (runner as unknown as typeof db)._.session.prepareQuery.bind((runner as unknown as typeof db)._.session);
  const statements = VARIANTS.map((v, i) => onRunner({ ...query, sql: v.edit ? v.edit(query.sql) : query.sql }, undefined, `parts_${i}`, false));
  // One job held per round in flight, as a worker's slot holds the job its last round claimed.
  const holds = [held];
  while (holds.length < INFLIGHT) holds.push((await workerRound(db, WORKER, [], claim, true)).claimed[0]!);
  const { pid } = (await execute<{ pid: number }>(db, sql`SELECT pg_backend_pid() AS pid`))[0]!;
  // CPU so far, in µs: the one backend's (utime + stime), or with rounds in flight the whole server's.
  const cpu = () => {
    if (INFLIGHT > 1) return pgCpuUs()!;
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) * 10_000;
  };
  let deadlocks = 0;
  const block = async (i: number) => {
    let left = BLOCK;
    const slot = async (h: number) => {
      while (left > 0) {
        left--;
        const planned = plan([report(holds[h]!)]);
        let rows;
        try {
          rows = (await statements[i]!.execute({ ...moveValues(planned, partsOf(planned, true)), ...claimValues(claim) })) as {
            claimed: [string, string, string, string, number, ClaimedJob["state"], number, number, number][] | null;
            lost: string[] | null;
          }[];
        } catch (e) {
          // Rounds in flight side by side deadlock now and then (docs/benchmarks.md): PostgreSQL rolls
          // one back, and it is sent again, as the worker's report path does.
          if (pgError(e)?.code !== "40P01") throw e;
          deadlocks++;
          left++;
          continue;
        }
        const c = rows[0]?.claimed?.[0];
        if (!c || rows[0]!.lost?.length) throw new Error(`${VARIANTS[i]!.name}: the round did not apply its report or claimed nothing`);
        holds[h] = { ...holds[h]!, id: c[0], state: c[5], attempt: c[6], stateVersion: c[8] };
      }
    };
    await Promise.all(holds.map((_, h) => slot(h)));
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
      await block(i);
      const used = cpu() - c0;
      if (v.after) await execute(db, sql.raw(v.after));
      if (rep > 0) perJob[i]!.push(used / BLOCK);
    }
  }
  if (runner !== db) await closeDb(runner);
  if (deadlocks > 0) console.log(`${deadlocks} rounds sent again after a deadlock\n`);
  await closeDb(db);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const base = median(perJob[0]!);
  const where = INFLIGHT === 1 ? "one connection" : `${INFLIGHT} in flight on ${CONNECTIONS} connections`;
  console.log(`## The one-job round's parts (\`${key}\`), ${where}, ${BLOCK} jobs a block, ${REPS} blocks each after a warm-up\n`);
  console.log(`| variant | ${INFLIGHT === 1 ? "backend" : "server"} CPU µs / job (median) | vs the worker's | each block |`);
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

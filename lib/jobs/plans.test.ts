import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { fillPlaceholders } from "drizzle-orm/sql";
import { beforeAll, describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { claim, claimCtes, claimValues, type ClaimForm } from "./claim";
import { guardedWriteCtes, markCte, moveValues, partsOf, plan } from "./write";
import { insertQueuedJobs } from "./direct-write";
import { execute } from "../db/drizzle";

/**
 * The worker's round statement (reports of the jobs it ran + the claim of its next ones) keeps one
 * plan shape whatever the batch (1, 100, 500) and whatever the table size: rows found by primary
 * key or the claim index, joins that are linear (hash or merge, or an index lookup per input row),
 * never a scan of jobs_live. Checked for the custom plan PostgreSQL makes with the actual values and
 * for the generic plan a prepared statement may switch to.
 */
const t = setupTestDb({ max: 2 });
const dialect = new PgDialect();

beforeAll(async () => {
  // 10,000 queued jobs besides the ones each case claims: a table the planner could be tempted to scan.
  await insertQueuedJobs(t.pool, { n: 10_000, queue: "other" });
  await execute(t.pool, sql`ANALYZE`);
});

type PlanNode = {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "CTE Name"?: string;
  "Function Name"?: string;
  "Plan Rows"?: number;
  Plans?: PlanNode[];
  "Parent Relationship"?: string;
  "Index Cond"?: string;
  Operation?: string;
};

function nodes(n: PlanNode, out: PlanNode[] = []): PlanNode[] {
  out.push(n);
  for (const c of n.Plans ?? []) nodes(c, out);
  return out;
}

/** How each table is read: "jobs_live by jobs_live_pkey", "jobs_live by Seq Scan" (a bitmap scan counts as its index). */
function scans(root: PlanNode): string[] {
  return [
    ...new Set(
      nodes(root)
        .filter((n) => n["Relation Name"] && /Scan/.test(n["Node Type"]))
        .map((n) => {
          const index = n["Index Name"] ?? nodes(n).find((c) => c["Node Type"] === "Bitmap Index Scan")?.["Index Name"];
          return `${n["Relation Name"]} by ${index ?? n["Node Type"]}`;
        }),
    ),
  ].sort();
}

/**
 * A nested loop that rescans a CTE, a function or a materialized set per row of an outer side that
 * is itself a batch: quadratic in the batch.
 */
function quadratic(root: PlanNode): string[] {
  const label = (n: PlanNode) => `${n["Node Type"]}${n["CTE Name"] ? ` ${n["CTE Name"]}` : ""}${n["Function Name"] ? ` ${n["Function Name"]}` : ""}`;
  // The direct-write mark (one row), the worker's queues and their settings, the shapes of the table's moves:
  // none grows with the batch.
  const single = (n: PlanNode) => ["mark", "capped", "open_queues", "shapes"].includes(n["CTE Name"] ?? "") || n["Node Type"] === "Result";
  return nodes(root)
    .filter((n) => n["Node Type"] === "Nested Loop")
    .filter((n) => {
      const outer = n.Plans?.find((c) => c["Parent Relationship"] === "Outer");
      const inner = n.Plans?.find((c) => c["Parent Relationship"] === "Inner");
      if (!outer || !inner || single(outer) || single(inner)) return false;
      // An inner side that reads the same set again for every outer row: a CTE, a function or a
      // materialized set, or an index scan whose condition names no outer column but an InitPlan's
      // whole array (the generic plan of \`id = ANY(ARRAY(SELECT id FROM picked)) AND id = p.id\`
      // rescanned all 500 picked ids for each of them).
      return /CTE Scan|Function Scan|Materialize/.test(inner["Node Type"]) || nodes(inner).some((c) => /InitPlan/.test(c["Index Cond"] ?? ""));
    })
    .map((n) => `${label(n.Plans![0]!)} × ${label(n.Plans![1]!)}`);
}

async function roundPlan(batch: number, generic: boolean, worker = false, form: ClaimForm = worker ? "oneQueue" : "full") {
  const queue = `plans-${batch}-${generic ? "g" : "c"}`;
  await insertQueuedJobs(t.pool, { n: batch * 2, queue });
  const held = await claim(t.pool, { workerId: "w", queues: [queue], limit: batch, startNow: batch });
  const moves = held.map((j) => ({
    jobId: j.id,
    event: "finish" as const,
    actor: { kind: "worker" as const, id: "w" },
    expected: { state: j.state, version: j.stateVersion },
    attempt: j.attempt,
  }));
  // `worker`: one job per statement, as an unbatched worker sends it (scalars); else a batch's arrays.
  const parts = partsOf(plan(moves), worker);
  const q = dialect.sqlToQuery(
    // `worker`: as the worker's round builds it (lib/jobs/round.ts), starting every job it claims
    // (`form`: lean while none of its queues is capped, of one queue here).
    sql`WITH ${markCte}, ${guardedWriteCtes(parts, { countsSlots: !worker })}, ${claimCtes({ withReports: worker, startsAll: worker, form })} SELECT (SELECT count(*) FROM moved) + (SELECT count(*) FROM claimed)`,
  );
  const params = fillPlaceholders(q.params, {
    ...moveValues(plan(moves), parts),
    ...claimValues({ workerId: "w", queues: [queue], limit: batch, startNow: batch }),
  });
  const rows = await t.pool.transaction(async (tx) => {
    if (generic) await execute(tx, sql`SET LOCAL plan_cache_mode = force_generic_plan`);
    await execute(tx, sql.raw(`PREPARE round_plan AS ${q.sql}`));
    try {
      const args = params.map((p) =>
        p === null
          ? "NULL"
          : `'${(Array.isArray(p) ? `{${p.map((x) => (x === null ? "NULL" : `"${String(x)}"`)).join(",")}}` : p instanceof Date ? p.toISOString() : String(p)).replace(/'/g, "''")}'`,
      );
      return await execute(tx, sql.raw(`EXPLAIN (FORMAT JSON) EXECUTE round_plan(${args.join(", ")})`));
    } finally {
      await execute(tx, sql.raw(`DEALLOCATE round_plan`));
    }
  });
  return (rows[0] as unknown as { "QUERY PLAN": [{ Plan: PlanNode }] })["QUERY PLAN"][0].Plan;
}

describe("the worker's round statement", () => {
  // At one job a loop over one row is the cheapest plan; from 100 on, none may loop over the batch.
  it("is linear at 100 and 500 jobs (custom plan)", async () => {
    for (const batch of [100, 500]) expect(quadratic(await roundPlan(batch, false)), `${batch} jobs`).toEqual([]);
  });

  // The custom plan is the planner's choice by cost: at this table size a 500-job claim may read
  // jobs_live once and hash-join its picks (at 10M rows it looks them up). Workers run the generic
  // plan (lib/db/client.ts `genericPlans`, the worker role's plan_cache_mode), and that one is held
  // to its shape.
  it("reads jobs_live only through its claim index and primary key at 1, 100 and 500 jobs, linearly (generic plan)", async () => {
    const plans = [await roundPlan(1, true), await roundPlan(100, true), await roundPlan(500, true)];
    for (const p of plans.slice(1)) expect(quadratic(p)).toEqual([]);
    const shapes = plans.map((p) => scans(p).filter((x) => x.startsWith("jobs_live ")));
    for (const s of shapes) {
      expect(s).toContain("jobs_live by jobs_live_claim_idx");
      expect(s).toContain("jobs_live by jobs_live_pkey");
      expect(s.filter((x) => !x.includes("_idx") && !x.includes("_pkey"))).toEqual([]);
    }
    expect(shapes[1]).toEqual(shapes[0]);
    expect(shapes[2]).toEqual(shapes[0]);
  });

  // One job per statement (an unbatched worker's round): the job's values go in as scalars and its
  // row is found by `id = $n`, with no array unnested and no rank computed.
  it("finds one job's row by its id, unnests no report array and ranks no claim, as an unbatched worker sends it (generic plan)", async () => {
    const p = await roundPlan(1, true, true);
    const all = nodes(p);
    const byId = all.filter((n) => n["Index Name"] === "jobs_live_pkey").map((n) => n["Index Cond"]);
    expect(
      byId.some((c) => /^\(id = \$\d+\)$/.test(c ?? "")),
      JSON.stringify(byId),
    ).toBe(true);
    expect(byId.filter((c) => /ANY/.test(c ?? ""))).toEqual([]);
    // Its one queue read straight from the claim index: no list of queues unnested, nothing merged or ranked.
    expect(all.filter((n) => n["Node Type"] === "Function Scan").map((n) => n["Function Name"])).toEqual([]);
    expect(all.filter((n) => n["Node Type"] === "WindowAgg" || n["Node Type"] === "Sort")).toEqual([]);
    expect(all.filter((n) => n["Index Name"] === "jobs_live_claim_idx")).toHaveLength(1);
    // Several queues: their list is unnested and each read in turn.
    const several = nodes(await roundPlan(1, true, true, "lean"));
    expect(several.filter((n) => n["Node Type"] === "Function Scan").map((n) => n["Function Name"])).toEqual(["unnest"]);
    // A batch keeps its arrays (a batched worker's lone report too) and a claim without `startsAll` ranks its picks.
    const lone = nodes(await roundPlan(1, true));
    expect(lone.filter((n) => n["Node Type"] === "Function Scan").length).toBe(2);
    const batch = nodes(await roundPlan(100, true));
    expect(batch.filter((n) => n["Node Type"] === "Function Scan").length).toBe(2);
    expect(batch.filter((n) => n["Node Type"] === "WindowAgg").length).toBe(1);
  });

  // While none of a worker's queues is capped, its claim reads their settings once and writes none
  // of them: no lock on a queue's row, no count of slots (ClaimOptions `lean`).
  it("reads the queues' settings once and updates none of them while no queue is capped (lean), and counts slots otherwise", async () => {
    const onQueues = (p: PlanNode) => nodes(p).filter((n) => n["Relation Name"] === "queues");
    for (const form of ["oneQueue", "lean"] as const) {
      const lean = onQueues(await roundPlan(1, true, true, form));
      expect(
        lean.filter((n) => n["Node Type"] === "ModifyTable"),
        form,
      ).toEqual([]);
      expect(
        lean.filter((n) => n["Node Type"] !== "ModifyTable"),
        form,
      ).toHaveLength(1);
    }
    const full = onQueues(await roundPlan(1, true, true, "full"));
    expect(full.filter((n) => n["Node Type"] === "ModifyTable").map((n) => n["Operation"])).toEqual(["Update"]);
  });
});

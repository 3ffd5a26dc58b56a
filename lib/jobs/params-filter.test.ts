import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { withScope } from "../db/scope";
import { setupTestDb } from "../db/test-db";
import { enqueue } from "./enqueue";
import { paramsProblem, parseJobFilters } from "./filters";
import { parseParamsFilter } from "./params-filter";
import { keysetOf, listSource, PARAMS_SET_CAP, SCAN_BUDGET } from "./list-source";
import { countByState, listJobs } from "./queries";
import { api } from "./test-helpers";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

describe("parseParamsFilter", () => {
  const contains = (s: string) => {
    const p = parseParamsFilter(s);
    if (!p.ok) throw new Error(p.message);
    return p.contains;
  };
  const problem = (s: string) => {
    const p = parseParamsFilter(s);
    return p.ok ? null : p.message;
  };

  it("writes path equality as containment, with or without the params. prefix", () => {
    expect(contains("params.customer_id = 42")).toEqual({ customer_id: 42 });
    expect(contains("customer_id=42")).toEqual({ customer_id: 42 });
    expect(contains('params.export.format = "csv"')).toEqual({ export: { format: "csv" } });
    expect(contains("region = eu")).toEqual({ region: "eu" });
    expect(contains("a.b = 1 and a.c = true, d = null")).toEqual({ a: { b: 1, c: true }, d: null });
    expect(contains('note = "x = 1, and more"')).toEqual({ note: "x = 1, and more" });
    expect(contains("rows = -1.5e3")).toEqual({ rows: -1500 });
  });

  it("takes a JSON object as the containment itself", () => {
    expect(contains('{"customer_id": 42}')).toEqual({ customer_id: 42 });
    expect(contains('{"tags": ["a"], "x": {"y": "z"}}')).toEqual({ tags: ["a"], x: { y: "z" } });
  });

  it("says what is wrong with bad input", () => {
    expect(problem('{"customer_id": 42')).toMatch(/^Not valid JSON/);
    expect(problem("[1, 2]")).toMatch(/no “=”/);
    expect(problem('{"a": 1} x')).toMatch(/^Not valid JSON/);
    expect(problem("{}")).toMatch(/empty/);
    expect(problem('{"a": [1]} ')).toBeNull();
    expect(problem('"a"')).toMatch(/no “=”/);
    expect(problem("customer_id")).toMatch(/no “=”/);
    expect(problem("params. = 1")).toMatch(/not a params path/);
    expect(problem("params = 1")).toMatch(/not a params path/);
    expect(problem("a b = 1")).toMatch(/not a params path/);
    expect(problem("a = ")).toMatch(/not a value/);
    expect(problem("a = two words")).toMatch(/not a value/);
    expect(problem('a = "open')).toMatch(/not closed/);
    expect(problem("a = 1, a = 2")).toMatch(/given twice/);
    expect(problem("a = 1, a.b = 2")).toMatch(/given twice/);
    expect(problem("x".repeat(600))).toMatch(/longer than/);
    expect(problem("a = \u0000")).toMatch(/NUL/);
    const deep = Array.from({ length: 10 }).reduce<unknown>((v) => ({ a: v }), 1);
    expect(problem(JSON.stringify(deep))).toMatch(/deeper/);
  });

  it("keeps a malformed search in the URL's filters, for the page to name the problem", () => {
    const f = parseJobFilters({ params: '{"customer_id": ' });
    expect(f.params).toBe('{"customer_id":');
    expect(paramsProblem(f)).toMatch(/^Not valid JSON/);
    expect(paramsProblem(parseJobFilters({ params: "customer_id = 42" }))).toBeNull();
    expect(paramsProblem(parseJobFilters({}))).toBeNull();
  });
});

describe("listing by params", () => {
  const t = setupTestDb();
  const app = t.connect({ role: "app", max: 2 });
  const acme42: string[] = [];
  let globex42: string;
  beforeAll(async () => {
    const base = Date.now() - 3_600_000;
    // Common values: every acme job has dataset orders; one in ten is csv; three are customer 42's (rows 42).
    for (let i = 0; i < 60; i++) {
      const rows = i % 20 === 5 ? 42 : 1000 + i;
      const { job } = await enqueue(
        t.pool,
        { tenantId: "acme", type: "export.tenant_data", params: { dataset: "orders", rows, format: i % 10 === 0 ? "csv" : "jsonl" } },
        api,
        { at: new Date(base + i * 1000) },
      );
      if (rows === 42) acme42.push(job.id);
    }
    globex42 = (await enqueue(t.pool, { tenantId: "globex", type: "export.tenant_data", params: { dataset: "orders", rows: 42 } }, api)).job.id;
  });

  const ids = (p: { jobs: { id: string }[] }) => p.jobs.map((j) => j.id);
  const staff = <T>(fn: (tx: Db) => Promise<T>) => withScope(app, { all: true }, (tx) => fn(tx as unknown as Db));
  const tenant = <T>(id: string, fn: (tx: Db) => Promise<T>) => withScope(app, { tenantId: id }, (tx) => fn(tx as unknown as Db));

  it("finds the jobs whose params contain the search, newest first, in both forms", async () => {
    const newest42 = [globex42, ...[...acme42].reverse()];
    expect(ids(await staff((tx) => listJobs(tx, parseJobFilters({ params: "params.rows = 42" }))))).toEqual(newest42);
    expect(ids(await staff((tx) => listJobs(tx, parseJobFilters({ params: '{"rows": 42}' }))))).toEqual(newest42);
    // "42" is a string: containment is exact on scalars.
    expect(ids(await staff((tx) => listJobs(tx, parseJobFilters({ params: 'rows = "42"' }))))).toEqual([]);
    expect(ids(await staff((tx) => listJobs(tx, parseJobFilters({ params: "rows = 42", type: "media.render" }))))).toEqual([]);
  });

  it("pages an unselective search with its keyset cursor", async () => {
    const f = parseJobFilters({ params: "dataset = orders", tenant: "acme", limit: "25" });
    const p1 = await staff((tx) => listJobs(tx, f));
    const p2 = await staff((tx) => listJobs(tx, { ...f, after: p1.next! }));
    const p3 = await staff((tx) => listJobs(tx, { ...f, after: p2.next! }));
    expect([...ids(p1), ...ids(p2), ...ids(p3)]).toHaveLength(60);
    expect(new Set([...ids(p1), ...ids(p2), ...ids(p3)]).size).toBe(60);
    expect(p3.next).toBeNull();
    const back = await staff((tx) => listJobs(tx, { ...f, before: p3.prev! }));
    expect(ids(back)).toEqual(ids(p2));
  });

  it("combines with the state tab and counts the states of the matches", async () => {
    // Six of acme's, and globex's (csv is the type's default, stored at submit).
    const counts = await staff((tx) => countByState(tx, { params: "format = csv" }));
    expect(counts.queued).toEqual({ n: 7, capped: false });
    expect(ids(await staff((tx) => listJobs(tx, parseJobFilters({ params: "format = csv", state: "succeeded" }))))).toEqual([]);
    expect(await staff((tx) => listJobs(tx, parseJobFilters({ params: "format = csv", state: "queued" })))).toMatchObject({ jobs: { length: 7 } });
  });

  it("lets a tenant find only its own jobs, through the index", async () => {
    expect(ids(await tenant("acme", (tx) => listJobs(tx, parseJobFilters({ params: "rows = 42", tenant: "acme" }))))).toEqual([...acme42].reverse());
    expect(ids(await tenant("globex", (tx) => listJobs(tx, parseJobFilters({ params: "rows = 42", tenant: "globex" }))))).toEqual([globex42]);
    // The tenant scope alone (no tenant filter) still confines the GIN path to the tenant's rows.
    expect(ids(await tenant("globex", (tx) => listJobs(tx, parseJobFilters({ params: "rows = 42" }))))).toEqual([globex42]);
    // A transaction with no scope finds nothing, also through the function.
    const [none] = await app.transaction((tx) =>
      execute<{ n: number }>(tx, sql`SELECT count(*)::int AS n FROM jobscope_params_match('{"rows": 42}', NULL, NULL, NULL, NULL, NULL, 10)`),
    );
    expect(none!.n).toBe(0);
  });

  it("matches nothing when the search does not parse, rather than everything", async () => {
    expect(ids(await staff((tx) => listJobs(tx, parseJobFilters({ params: "rows = " }))))).toEqual([]);
    const counts = await staff((tx) => countByState(tx, { params: "{oops" }));
    expect(Object.values(counts).every((c) => c.n === 0)).toBe(true);
  });

  it("reads a rare value through the GIN index, a common one through the created walk", async () => {
    const plan = async (search: string) => {
      const f = parseJobFilters({ params: search });
      let text = "";
      await app.transaction(async (tx) => {
        await execute(tx, sql`SELECT set_config('jobscope.scope', 'all', true), set_config('role', 'jobscope_staff', true)`);
        const source = listSource(f, keysetOf({}), 51)!;
        const rows = await execute(tx, sql`EXPLAIN (ANALYZE, COSTS OFF) ${source.sql}`);
        text = rows.map((r) => Object.values(r)[0]).join("\n");
      });
      return text;
    };
    const rare = await plan("rows = 42");
    expect(rare).toMatch(/Function Scan on jobscope_params_match m \(actual/);
    const common = await plan("dataset = orders");
    expect(common).toMatch(/Function Scan on jobscope_params_match m \(never executed\)/);
    // The function pages by the keyset it is given: the matches older than (before_at, before_id).
    const all = await staff((tx) =>
      execute<{ id: string; at: string }>(
        tx,
        sql`
      SELECT id, created_at::text AS at FROM jobscope_params_match('{"rows": 42}', NULL, NULL, NULL, NULL, NULL, 10)`,
      ),
    );
    expect(all.map((r) => r.id)).toEqual([globex42, ...[...acme42].reverse()]);
    const older = await staff((tx) =>
      execute<{ id: string }>(
        tx,
        sql`
      SELECT id FROM jobscope_params_match('{"rows": 42}', NULL, NULL, NULL, ${all[1]!.at}::timestamptz, ${all[1]!.id}::uuid, 10)`,
      ),
    );
    expect(older.map((r) => r.id)).toEqual(all.slice(2).map((r) => r.id));
    expect(PARAMS_SET_CAP).toBeGreaterThan(SCAN_BUDGET);
  });
});

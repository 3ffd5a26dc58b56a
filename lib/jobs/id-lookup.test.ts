import { beforeAll, describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { withScope, type Scope } from "../db/scope";
import { idQueryOf } from "../uuid";
import { enqueue } from "./enqueue";
import { parseJobFilters } from "./filters";
import { idPieceIds } from "./id-lookup";
import { uuidv7Expr } from "./ids";
import { listJobs } from "./queries";
import { api } from "./test-helpers";
import type { JobRow } from "./types";
import { withDirectWrites } from "./direct-write";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb({ tenants: ["acme", "globex"] });
const REPORT = { type: "report.generate", params: { report: "daily_usage", period: "2026-11" } } as const;
const jobs: JobRow[] = [];

beforeAll(async () => {
  // 20,000 catalog rows besides the jobs looked up: a table the planner could be tempted to scan.
  await withDirectWrites(t.pool, (tx) =>
    execute(
      tx,
      sql`
    INSERT INTO job_catalog (id, tenant_id, type, queue, priority, max_attempts, params, submitted_by_kind, submitted_by, created_at, not_before)
    SELECT ${sql.raw(uuidv7Expr("now() - interval '1 day'"))}, 'globex', 'report.generate', 'other', 0, 3, '{}'::jsonb, 'api', 'bulk', now(), now()
      FROM generate_series(1, 20000)`,
    ),
  );
  for (let i = 0; i < 4; i++) jobs.push((await enqueue(t.pool, { tenantId: "acme", ...REPORT, idempotencyKey: `k-${i}` }, api)).job);
  await execute(t.pool, sql`ANALYZE job_catalog`);
});

// As the console reads: in a scope (a piece of an id's end is matched as the owner, with the policy written out).
const app = t.connect({ role: "app", max: 2 });
const found = async (q: string, extra: Record<string, string> = {}, scope: Scope = { all: true }) =>
  withScope(app, scope, async (tx) => (await listJobs(tx, parseJobFilters({ q, limit: "200", ...extra }))).jobs.map((j) => j.id));

describe("what people paste into the lookup", () => {
  const id = "01a230b2-601a-71fa-b3d2-ebfbabd04ab8";

  it("reads a full id, in any case, with or without dashes or braces", () => {
    for (const s of [id, id.toUpperCase(), ` ${id} `, `{${id}}`, `urn:uuid:${id}`, id.replace(/-/g, "")])
      expect(idQueryOf(s)).toEqual({ kind: "id", id });
  });

  it("reads the job id out of a pasted link: its page, an API path, a list link", () => {
    for (const s of [
      `http://127.0.0.1:3000/jobs/${id}`,
      `https://jobs.example/jobs/${id}?tab=runs#events`,
      `/jobs/${id}`,
      `https://x.example/api/v1/jobs/${id}/cancel`,
    ]) {
      expect(idQueryOf(s)).toEqual({ kind: "id", id });
    }
    expect(idQueryOf(`http://127.0.0.1:3000/jobs?q=${id.slice(-8)}`)).toMatchObject({ kind: "piece", hex: id.slice(-8) });
    expect(idQueryOf("http://127.0.0.1:3000/jobs?state=dead")).toBeNull();
  });

  it("takes a piece of either end of 6 hex digits or more, with dashes only where an id has them", () => {
    expect(idQueryOf("01a230")).toEqual({
      kind: "piece",
      hex: "01a230",
      prefix: { lo: "01a230" + "00-0000-0000-0000-000000000000", hi: "01a230" + "ff-ffff-ffff-ffff-ffffffffffff" },
      suffix: "01a230",
    });
    // 13 digits from the end cross the last dash; from the start they would cross the second.
    expect(idQueryOf("2-ebfbabd04ab8")).toMatchObject({ hex: "2ebfbabd04ab8", prefix: null, suffix: "2-ebfbabd04ab8" });
    expect(idQueryOf("01a230b2-601a-7")).toMatchObject({ prefix: { lo: "01a230b2-601a-7000-0000-000000000000" }, suffix: null });
    expect(idQueryOf("01a230b2-601a7")).toBeNull();
    for (const bad of ["01a23", "01a230bz", "01a2-30b2", "demo-slow-export", "acme export", ""]) expect(idQueryOf(bad)).toBeNull();
  });
});

describe("finding a job by a piece of its id", () => {
  it("finds each job by its short id (the last 8 digits, as the list prints them), its last 6, 12 and 13, in any case", async () => {
    for (const j of jobs) {
      for (const n of [6, 8, 12, 14]) {
        const piece = j.id.slice(-n);
        expect(await found(piece), piece).toContain(j.id);
        expect(await found(piece.toUpperCase())).toContain(j.id);
      }
      // Twelve digits of the end are 48 random bits: one job.
      expect(await found(j.id.slice(-12))).toEqual([j.id]);
    }
  });

  it("finds a job by the start of its id, and by a link to it; a tenant's lookup stays in its tenant", async () => {
    const j = jobs[0]!;
    expect(await found(j.id.slice(0, 30))).toEqual([j.id]);
    expect(await found(`http://127.0.0.1:3000/jobs/${j.id}`)).toEqual([j.id]);
    // Jobs submitted within the same ~4 hours share their first 6 digits (the submit time).
    const shared = await found(j.id.slice(0, 6));
    expect(shared).toEqual(expect.arrayContaining(jobs.map((x) => x.id)));
    expect(await found(j.id.slice(-8), { tenant: "globex" })).toEqual([]);
    // Row-level security: another tenant's member finds nothing, by either end.
    expect(await found(j.id.slice(-8), {}, { tenantId: "globex" })).toEqual([]);
    expect(await found(j.id.slice(0, 30), {}, { tenantId: "globex" })).toEqual([]);
    expect(await found(j.id.slice(-8), {}, { tenantId: "acme" })).toEqual([j.id]);
    expect(await found("ffffff0000")).toEqual([]);
  });

  it("reads the end through job_catalog_id_suffix_idx and the start through the primary key, under row-level security", async () => {
    const id = jobs[0]!.id;
    // Six plain digits may be either end; fourteen with the dash are only the end; ten with the dash only the start.
    const pieces = [
      { piece: id.slice(-6), start: true, end: true },
      { piece: id.slice(-14), start: false, end: true },
      { piece: id.slice(0, 10), start: true, end: false },
    ];
    const ends: string[] = [];
    for (const { piece, start, end } of pieces) {
      const q = idQueryOf(piece);
      if (q?.kind !== "piece") throw new Error(`not a piece: ${piece}`);
      expect({ start: q.prefix !== null, end: q.suffix !== null }, piece).toEqual({ start, end });
      if (q.suffix) ends.push(q.suffix);
      for (const scope of [{ all: true } as const, { tenantId: "acme" }]) {
        const plan = await withScope(app, scope, async (tx) => JSON.stringify((await execute(tx, sql`EXPLAIN (FORMAT JSON) ${idPieceIds(q)}`))[0]));
        expect(plan, `${piece} ${JSON.stringify(scope)}`).not.toMatch(/"Node Type":"Seq Scan"/);
        // The start: any index on id (the primary key, or an index that covers id); the end alone reads no range of ids.
        expect(/"Index Cond":"\(\(id >= '/.test(plan), `${piece} ${JSON.stringify(scope)}`).toBe(start);
      }
    }
    // The end is looked up in the function, as the owner: its own statement's plan.
    expect(ends).toHaveLength(2);
    for (const suffix of ends) {
      const key = [...suffix.slice(-12)].reverse().join("");
      const [lo, hi] = [parseInt(key.padEnd(12, "0"), 16), parseInt(key.padEnd(12, "f"), 16)];
      const inner = JSON.stringify(
        (
          await execute(
            t.pool,
            sql`EXPLAIN (FORMAT JSON) SELECT c.id FROM job_catalog c
           WHERE (('x' || reverse(right(c.id::text, 12)))::bit(48)::bigint) BETWEEN ${lo} AND ${hi} AND right(c.id::text, ${suffix.length}) = ${suffix} LIMIT 200`,
          )
        )[0],
      );
      expect(inner).toContain("job_catalog_id_suffix_idx");
    }
  });
});

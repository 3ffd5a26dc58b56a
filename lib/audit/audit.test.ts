import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";
import { setupTestDb } from "../db/test-db";
import { AUDIT_PAGE, auditQuery, listAudit, listAuditActions, recordAudit, type AuditFilters, type AuditRow } from "./audit";

const db = setupTestDb({ max: 2, tenants: [] });
const JOB = "0b7c5a52-7f0e-4c47-9a53-1d1d7f3a0c11";
const T0 = Date.parse("2026-11-01T00:00:00Z");
const MIN = 60_000;

/** 130 rows, one a minute from T0: three actors, three actions, outcomes in turn. */
beforeAll(async () => {
  await execute(
    db.pool,
    sql`
    INSERT INTO audit_log (at, actor, role, via, action, outcome, reason, job_ids)
    SELECT ${new Date(T0)}::timestamptz + make_interval(mins => i),
           (ARRAY['ada@x.example', 'otto@x.example', 'anonymous'])[1 + i % 3],
           'operator', 'console',
           (ARRAY['job.cancel', 'admin.user.create', 'replay.start'])[1 + (i / 10) % 3],
           (ARRAY['applied', 'refused', 'denied', 'invalid'])[1 + i % 4],
           'row ' || i, ARRAY[${JOB}]::uuid[]
    FROM generate_series(0, 129) AS i`,
  );
});
/** Every page of a filter, following the keyset cursor. */
async function all(f: AuditFilters): Promise<AuditRow[]> {
  const out: AuditRow[] = [];
  let before: number | undefined;
  for (let i = 0; i < 100; i++) {
    const page = await listAudit(db.pool, { ...f, before });
    expect(page.rows.length).toBeLessThanOrEqual(AUDIT_PAGE);
    out.push(...page.rows);
    if (page.next === null) return out;
    before = page.next;
  }
  throw new Error("pagination did not end");
}
const minuteOf = (r: AuditRow) => Number(r.reason!.slice(4));

describe("listAudit", () => {
  it("pages through every row once, newest first", async () => {
    const first = await listAudit(db.pool, {});
    expect(first.rows).toHaveLength(AUDIT_PAGE);
    expect(first.rows[0]).toMatchObject({ reason: "row 129", actor: "ada@x.example", via: "console", jobIds: [JOB] });
    // The row's types are the schema's (AuditRow is audit_log's row): a bigint id arrives as a number.
    expect(first.rows[0]!.at).toBeInstanceOf(Date);
    expect(typeof first.rows[0]!.id).toBe("number");
    const rows = await all({});
    expect(rows.map(minuteOf)).toEqual(Array.from({ length: 130 }, (_, i) => 129 - i));
  });

  it("filters by actor, action and outcome, together and apart", async () => {
    const byActor = await all({ actor: "otto@x.example" });
    expect(byActor.map(minuteOf)).toEqual(Array.from({ length: 130 }, (_, i) => 129 - i).filter((i) => i % 3 === 1));
    const byAction = await all({ action: "admin.user.create" });
    expect(byAction.length).toBe(40); // minutes 10-19, 40-49, 70-79, 100-109
    expect(byAction.every((r) => r.action === "admin.user.create")).toBe(true);
    const denied = await all({ outcome: "denied" });
    expect(denied.map(minuteOf).every((i) => i % 4 === 2)).toBe(true);
    const both = await all({ actor: "anonymous", action: "job.cancel", outcome: "invalid" });
    expect(both.map(minuteOf)).toEqual([95, 35]); // i ≡ 2 (mod 3), i ≡ 3 (mod 4), minutes 0-9, 30-39, …
    expect(await all({ actor: "nobody@x.example" })).toEqual([]);
  });

  it("filters by a half-open time range [since, until)", async () => {
    const rows = await all({ since: new Date(T0 + 10 * MIN), until: new Date(T0 + 70 * MIN) });
    expect(rows.map(minuteOf)).toEqual(Array.from({ length: 60 }, (_, i) => 69 - i));
    expect((await all({ until: new Date(T0 + 2 * MIN) })).map(minuteOf)).toEqual([1, 0]);
  });

  it("records what recordAudit is given, keeping only well-formed job ids", async () => {
    await recordAudit(db.pool, {
      userId: "u1",
      actor: "new@x.example",
      role: "admin",
      tenantId: null,
      via: "console",
      action: "admin.tenant.create",
      outcome: "applied",
      reason: "<b>tenant</b>",
      jobIds: [JOB, "not-a-uuid"],
    });
    const [row] = (await listAudit(db.pool, { actor: "new@x.example" })).rows;
    expect(row).toMatchObject({ action: "admin.tenant.create", outcome: "applied", reason: "<b>tenant</b>", jobIds: [JOB], role: "admin" });
  });

  it("lists the distinct actions, sorted", async () => {
    expect(await listAuditActions(db.pool)).toEqual(["admin.tenant.create", "admin.user.create", "job.cancel", "replay.start"]);
  });
});

describe("the indexes behind the audit page's filters", () => {
  /** The indexes (and any sequential scan) in the plan PostgreSQL picks for listAudit's query. */
  async function indexesFor(f: AuditFilters): Promise<string[]> {
    const [row] = await execute<Record<string, unknown>>(db.pool, sql`EXPLAIN (FORMAT JSON) ${auditQuery(db.pool, f)}`);
    const names: string[] = [];
    const walk = (n: Record<string, unknown>) => {
      if (typeof n["Index Name"] === "string") names.push(n["Index Name"]);
      if (n["Node Type"] === "Seq Scan") names.push("Seq Scan");
      for (const c of (n.Plans as Record<string, unknown>[] | undefined) ?? []) walk(c);
    };
    walk((Object.values(row!)[0] as { Plan: Record<string, unknown> }[])[0]!.Plan);
    return names;
  }

  it("a user or an action filter reads its own index, in id order, with or without a cursor", async () => {
    // 50,000 more rows: 1,000 actors and 500 actions, so one user's or one action's rows are
    // a small part of the log. (For an action that is a large part of it, PostgreSQL rightly
    // prefers the primary key backwards with a filter: a page is found within ~51/share rows.)
    // Real logs have about 50 action names (a CHECK since 0013); this planner test needs 500, so its
    // own database drops the constraint.
    await execute(db.pool, sql`ALTER TABLE audit_log DROP CONSTRAINT audit_log_action_known`);
    await execute(
      db.pool,
      sql`
      INSERT INTO audit_log (at, actor, via, action, outcome)
      SELECT now() - make_interval(secs => i), 'user' || (i % 1000) || '@x.example', 'api', 'action.' || (i % 500), 'applied'
      FROM generate_series(1, 50000) AS i`,
    );
    await execute(db.pool, sql`ANALYZE audit_log`);
    const [{ maxId }] = (await execute<{ maxId: number }>(db.pool, sql`SELECT max(id)::int AS max_id FROM audit_log`)) as unknown as [
      { maxId: number },
    ];
    expect(await indexesFor({ actor: "user7@x.example" })).toEqual(["audit_log_actor_idx"]);
    expect(await indexesFor({ actor: "user7@x.example", before: maxId - 1000 })).toEqual(["audit_log_actor_idx"]);
    expect(await indexesFor({ action: "action.7" })).toEqual(["audit_log_action_idx"]);
    expect(await indexesFor({ action: "action.7", before: maxId - 1000 })).toEqual(["audit_log_action_idx"]);
    expect(await indexesFor({})).toEqual(["audit_log_pkey"]);
    expect(await indexesFor({ before: maxId - 1000 })).toEqual(["audit_log_pkey"]);
  });
});

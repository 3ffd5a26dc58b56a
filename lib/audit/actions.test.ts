import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { AUDIT_ACTIONS } from "./actions";
import { createAnonymousAuditor } from "./anonymous";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const db = setupTestDb({ max: 3, tenants: [] });

describe("audit action names come from a fixed set, never from a crafted event name", () => {
  it("the database's CHECK lists exactly lib/audit/actions.ts", async () => {
    const [c] = await execute<{ def: string }>(
      db.pool,
      sql`
      SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'audit_log_action_known'`,
    );
    const names = [...(c?.def ?? "").matchAll(/'([^']+)'::text/g)].map((m) => m[1]);
    expect(names.sort()).toEqual([...AUDIT_ACTIONS].sort());
  });

  it("a name outside the set is refused by the database, even as the owner", async () => {
    await expect(
      execute(
        db.pool,
        sql`INSERT INTO audit_log (actor, via, action, outcome) VALUES ('anonymous', 'console', 'job.cancel OK by admin@jobscope.local', 'denied')`,
      ),
    ).rejects.toThrow(/audit_log_action_known/);
  });
});

describe("anonymous denials are aggregated and bounded", () => {
  const count = async (since: number) =>
    (
      await execute<{ rows: number; attempts: number }>(
        db.pool,
        sql`
      SELECT count(*)::int AS rows, coalesce(sum(repeat_count), 0)::int AS attempts FROM audit_log WHERE id > ${since} AND actor = 'anonymous'`,
      )
    )[0]!;
  const lastId = async () => (await execute<{ id: number }>(db.pool, sql`SELECT coalesce(max(id), 0)::int AS id FROM audit_log`))[0]!.id;

  it("100 denied requests from one address write 2 rows that still count all 100", async () => {
    const auditor = createAnonymousAuditor(() => db.pool, { windowMs: 60_000 });
    const since = await lastId();
    for (let i = 0; i < 100; i++)
      await auditor.record({ via: "api", action: "job.submit", outcome: "denied", reason: "no valid API key" }, "203.0.113.1");
    expect(await count(since)).toEqual({ rows: 1, attempts: 1 });
    await auditor.flush();
    expect(await count(since)).toEqual({ rows: 2, attempts: 100 });
  });

  it("many addresses cannot multiply the rows: past the cap they pool into one window per action", async () => {
    const auditor = createAnonymousAuditor(() => db.pool, { windowMs: 60_000, maxWindows: 10 });
    const since = await lastId();
    for (let i = 0; i < 500; i++)
      await auditor.record({ via: "console", action: "job.cancel", outcome: "denied", reason: "Sign in to do this." }, `198.51.100.${i % 250}`);
    await auditor.flush();
    const c = await count(since);
    expect(c.attempts).toBe(500);
    // 10 windows of their own (first row + aggregate each) and one pooled window (first row + aggregate).
    expect(c.rows).toBeLessThanOrEqual(22);
  });

  it("attempts with different reasons from one address are not alike: each reason keeps its own row", async () => {
    const auditor = createAnonymousAuditor(() => db.pool, { windowMs: 60_000 });
    const since = await lastId();
    for (const who of ["a@x.example", "b@x.example", "a@x.example", "b@x.example"])
      await auditor.record({ via: "console", action: "auth.sign_in", outcome: "denied", reason: `wrong password for account ${who}` }, "192.0.2.9");
    await auditor.flush();
    const rows = await execute<{ reason: string; repeatCount: number }>(
      db.pool,
      sql`SELECT reason, repeat_count FROM audit_log WHERE id > ${since} ORDER BY id`,
    );
    const per = (who: string) => rows.filter((r) => r.reason.includes(`account ${who}`));
    // Each account: its first attempt at once, then one aggregate row counting the other.
    for (const who of ["a@x.example", "b@x.example"]) expect(per(who).map((r) => r.repeatCount)).toEqual([1, 1]);
    expect(rows).toHaveLength(4);
  });

  it("the first attempt of a kind is written at once, with the address it came from", async () => {
    const auditor = createAnonymousAuditor(() => db.pool);
    const since = await lastId();
    await auditor.record({ via: "console", action: "console.cross_origin", outcome: "denied", reason: "cross-origin POST" }, "192.0.2.44");
    const [row] = await execute<{ reason: string }>(db.pool, sql`SELECT reason FROM audit_log WHERE id > ${since}`);
    expect(row?.reason).toBe("cross-origin POST (from 192.0.2.44)");
  });
});

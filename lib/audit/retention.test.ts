import { beforeAll, describe, expect, it } from "vitest";
import { closeDb, connect } from "../db/client";
import { setupTestDb } from "../db/test-db";
import { pruneAuditLog } from "./retention";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const db = setupTestDb({ max: 2, tenants: [] });
const DAY = 86_400_000;
beforeAll(async () => {
  // Rows 10, 300, 380 and 500 days old.
  for (const days of [10, 300, 380, 500]) {
    await execute(
      db.pool,
      sql`INSERT INTO audit_log (at, actor, via, action, outcome, reason)
                 VALUES (${new Date(Date.now() - days * DAY)}, 'x@x.example', 'console', 'job.cancel', 'applied', ${`${days} days`})`,
    );
  }
});
const reasons = async () =>
  (await execute<{ reason: string }>(db.pool, sql`SELECT reason FROM audit_log WHERE action = 'job.cancel' ORDER BY at`)).map((r) => r.reason);

describe("audit log retention", () => {
  it("nobody deletes audit rows outside a retention run, not even the owner", async () => {
    await expect(execute(db.pool, sql`DELETE FROM audit_log WHERE reason = '500 days'`)).rejects.toThrow(/append-only/);
    await expect(execute(db.pool, sql`UPDATE audit_log SET reason = 'edited'`)).rejects.toThrow(/append-only/);
    await expect(execute(db.pool, sql`TRUNCATE audit_log`)).rejects.toThrow(/append-only/);
  });

  it("a retention run cannot delete rows younger than 365 days, even when it asks to", async () => {
    await expect(pruneAuditLog(db.pool, { keepDays: 30 })).rejects.toThrow(/at least 365 days/);
    await expect(
      db.pool.transaction(async (tx) => {
        await execute(tx, sql`SELECT set_config('jobscope.audit_retention', 'on', true)`);
        await execute(tx, sql`DELETE FROM audit_log WHERE reason = '300 days'`);
      }),
    ).rejects.toThrow(/older than 365 days/);
    expect(await reasons()).toEqual(["500 days", "380 days", "300 days", "10 days"]);
  });

  it("removes rows past the kept period and records that it did", async () => {
    const r = await pruneAuditLog(db.pool, { keepDays: 400 });
    expect(r.deleted).toBe(1);
    expect(await reasons()).toEqual(["380 days", "300 days", "10 days"]);
    const [note] = await execute<{ actor: string; reason: string }>(
      db.pool,
      sql`SELECT actor, reason FROM audit_log WHERE action = 'audit.retention'`,
    );
    expect(note).toMatchObject({ actor: "retention", reason: expect.stringMatching(/^removed 1 audit row\(s\) older than .* \(kept 400 days\)$/) });
  });

  it("the console's role cannot delete audit rows at all", async () => {
    const app = connect(db.roleUrl("app"), { max: 1 });
    try {
      await expect(execute(app, sql`DELETE FROM audit_log`)).rejects.toThrow(/permission denied/);
    } finally {
      await closeDb(app);
    }
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey, verifyApiKey } from "../api/keys";
import type { Db } from "../db/client";
import { withScope } from "../db/scope";
import { setupTestDb } from "../db/test-db";
import { createUser } from "./users";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// audit_log, api_keys and integrity_audits are under row-level security, and the console's
// role could update any column of users. As the console's role (jobscope_app), with no application filter.
const db = setupTestDb({ max: 3 });
const app = db.connect({ role: "app", max: 2 });
let acmeKey: { secret: string; key: { id: string } };
let userId: string;
const ADMIN = { userId: null, actor: "admin@x.example", role: "admin" as const, tenantId: null };

beforeAll(async () => {
  acmeKey = await createApiKey(db.pool, { tenantId: "acme", name: "acme ci" }, ADMIN);
  await createApiKey(db.pool, { tenantId: "globex", name: "globex ci" }, ADMIN);
  await execute(db.pool, sql`INSERT INTO audit_log (actor, tenant_id, via, action, outcome) VALUES ('x', 'globex', 'api', 'job.submit', 'applied')`);
  await execute(
    db.pool,
    sql`INSERT INTO integrity_audits (window_from, window_to, jobs_checked, mismatches, duration_ms, actor) VALUES (now(), now(), 1, 0, 1, 'cli')`,
  );
  userId = (await createUser(db.pool, { email: "m@acme.example", name: "M", password: "a-password-123", role: "tenant", tenantId: "acme" })).id;
});
const count = (db: Db, table: string) => execute<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM ${sql.raw(table)}`).then((r) => r[0]!.n);

describe("row-level security on the identity and audit tables", () => {
  it("a transaction without a scope sees no audit rows, keys or integrity checks", async () => {
    for (const table of ["audit_log", "api_keys", "integrity_audits"]) expect(await count(app, table), table).toBe(0);
  });

  it("a tenant scope sees only its own keys, and no audit log or integrity check", async () => {
    const seen = await withScope(app, { tenantId: "acme" }, async (tx) => ({
      keys: await execute<{ tenantId: string }>(tx, sql`SELECT tenant_id FROM api_keys`),
      audit: await count(tx, "audit_log"),
      integrity: await count(tx, "integrity_audits"),
    }));
    expect(seen.keys.map((k) => k.tenantId)).toEqual(["acme"]);
    expect(seen.audit).toBe(0);
    expect(seen.integrity).toBe(0);
    // Nor can it write another tenant's key or audit row.
    await expect(
      withScope(app, { tenantId: "acme" }, (tx) =>
        execute(tx, sql`INSERT INTO api_keys (tenant_id, name, prefix, hash, created_by) VALUES ('globex', 'x', 'jsk_x', 'h1', 'x')`),
      ),
    ).rejects.toThrow(/row-level security/);
    await expect(
      withScope(app, { tenantId: "acme" }, (tx) =>
        execute(tx, sql`INSERT INTO audit_log (actor, tenant_id, via, action, outcome) VALUES ('x', 'globex', 'api', 'job.submit', 'applied')`),
      ),
    ).rejects.toThrow(/row-level security/);
  });

  it("a staff transaction sees every key, audit row and integrity check", async () => {
    const seen = await withScope(app, { all: true }, async (tx) => [
      await count(tx, "api_keys"),
      await count(tx, "audit_log"),
      await count(tx, "integrity_audits"),
    ]);
    expect(seen[0]).toBe(2);
    expect(seen[1]).toBeGreaterThanOrEqual(1);
    expect(seen[2]).toBe(1);
  });

  it("an API request still finds its key (through a SECURITY DEFINER function that returns only that key)", async () => {
    expect(await verifyApiKey(app, `Bearer ${acmeKey.secret}`)).toMatchObject({ keyId: acmeKey.key.id, tenantId: "acme" });
    expect(await verifyApiKey(app, `Bearer jsk_${"B".repeat(43)}`)).toBeNull();
  });

  it("the console's role cannot change who a user is outside a staff transaction; a staff transaction can", async () => {
    await expect(execute(app, sql`UPDATE users SET role = 'admin', tenant_id = NULL WHERE id = ${userId}`)).rejects.toThrow(/permission denied/);
    await expect(execute(app, sql`UPDATE users SET deactivated_at = NULL WHERE id = ${userId}`)).rejects.toThrow(/permission denied/);
    await expect(execute(app, sql`INSERT INTO users (id, name, email, role) VALUES ('x', 'x', 'x@x.example', 'admin')`)).rejects.toThrow(
      /permission denied/,
    );
    await expect(execute(app, sql`DELETE FROM users WHERE id = ${userId}`)).rejects.toThrow(/permission denied/);
    // What better-auth needs for a profile update still works.
    await execute(app, sql`UPDATE users SET name = 'Renamed', updated_at = now() WHERE id = ${userId}`);
    await withScope(app, { all: true }, (tx) => execute(tx, sql`UPDATE users SET tenant_owner = true WHERE id = ${userId}`));
    const [u] = await execute(db.pool, sql`SELECT name, tenant_owner, role FROM users WHERE id = ${userId}`);
    expect(u).toEqual({ name: "Renamed", tenantOwner: true, role: "tenant" });
  });
});

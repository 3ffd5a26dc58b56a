import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Viewer } from "./viewer";
import { setupTestDb } from "../db/test-db";
import { lastAudit, OPERATOR, signIn } from "../frame/test-actions";
import { createUser } from "./users";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// The admin page's server actions, called directly as a crafted POST would call them.
// Only the session is stood in for (who is signed in); the database is real, as the console's role.
vi.mock("@/lib/auth/viewer", async (real) => (await import("../frame/test-actions")).withSession(await real()));

const db = setupTestDb({ consolePool: true });
let actions: typeof import("@/app/admin/actions");
let ADMIN: Viewer;

const counts = async () =>
  (
    await execute<{ users: number; tenants: number }>(
      db.pool,
      sql`SELECT (SELECT count(*)::int FROM users) AS users, (SELECT count(*)::int FROM tenants) AS tenants`,
    )
  )[0]!;

beforeAll(async () => {
  const a = await createUser(db.pool, { email: "admin@jobscope.local", name: "Ada", password: "admin-password-1", role: "admin" });
  ADMIN = { userId: a.id, email: a.email, name: a.name, role: "admin", tenantId: null, tenantOwner: false };
  actions = await import("@/app/admin/actions");
});

describe("admin server actions", () => {
  it("an admin creates a tenant and a user, renames the tenant and changes the role; each is audited as applied", async () => {
    signIn(ADMIN);
    expect(await actions.createTenantAction({ id: "initech", name: "Initech" })).toMatchObject({ ok: true });
    expect(await lastAudit(db.pool)).toMatchObject({ actor: ADMIN.email, action: "admin.tenant.create", outcome: "applied" });
    const created = await actions.createUserAction({
      email: "p@initech.example",
      name: "Peter",
      password: "peter-password-1",
      role: "tenant",
      tenantId: "initech",
      tenantOwner: true,
    });
    expect(created).toMatchObject({ ok: true });
    const audit = await lastAudit(db.pool);
    expect(audit).toMatchObject({ action: "admin.user.create", outcome: "applied" });
    expect(audit.reason).not.toContain("peter-password-1");
    expect(await actions.renameTenantAction({ id: "initech", name: "Initech Corp" })).toMatchObject({ ok: true });
    const [peter] = await execute<{ id: string }>(db.pool, sql`SELECT id FROM users WHERE email = 'p@initech.example'`);
    expect(await actions.setUserRoleAction({ userId: peter!.id, role: "support" })).toMatchObject({ ok: true });
    expect(await lastAudit(db.pool)).toMatchObject({ action: "admin.user.role", outcome: "applied" });
    const [row] = await execute(db.pool, sql`SELECT role, tenant_id FROM users WHERE id = ${peter!.id}`);
    expect(row).toEqual({ role: "support", tenantId: null });
  });

  it.each([
    ["an operator", (): Viewer | null => OPERATOR, "denied"],
    ["nobody signed in", (): Viewer | null => null, "denied"],
  ] as const)("refuses %s on every action, audits it and writes nothing", async (_, who, outcome) => {
    signIn(who());
    const before = await counts();
    const calls = [
      () => actions.createTenantAction({ id: "sneaky", name: "Sneaky" }),
      () => actions.renameTenantAction({ id: "acme", name: "Pwned" }),
      () => actions.createUserAction({ email: "x@y.example", name: "X", password: "long-password-1", role: "admin" }),
      () => actions.setUserRoleAction({ userId: ADMIN.userId, role: "support" }),
    ];
    for (const call of calls) {
      expect(await call()).toMatchObject({ ok: false, error: { code: "forbidden" } });
      expect(await lastAudit(db.pool)).toMatchObject({ actor: who()?.email ?? "anonymous", outcome });
    }
    expect(await counts()).toEqual(before);
    const [acme] = await execute(db.pool, sql`SELECT name FROM tenants WHERE id = 'acme'`);
    expect(acme).toEqual({ name: "ACME" });
  });

  it("refuses extra fields and bad input with a reason, audited as invalid, nothing written", async () => {
    signIn(ADMIN);
    const before = await counts();
    const r1 = await actions.renameTenantAction({ id: "acme", name: "A", role: "admin" });
    expect(r1).toMatchObject({ ok: false, error: { code: "invalid_input", message: expect.stringContaining('unknown field "role"') } });
    expect(await lastAudit(db.pool)).toMatchObject({ action: "admin.tenant.rename", outcome: "invalid" });
    const r2 = await actions.createUserAction({ email: "s@x.example", name: "S", password: "secret-password-9", role: "operator", tenantId: "acme" });
    expect(r2).toMatchObject({ ok: false, error: { message: expect.stringContaining("Tenant: a tenant member needs a tenant") } });
    expect((await lastAudit(db.pool)).reason).not.toContain("secret-password-9");
    expect(await actions.createTenantAction({ id: "Bad Id", name: "B" })).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    expect(await actions.createTenantAction({ id: "acme", name: "Again" })).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("already exists") },
    });
    expect(
      await actions.createUserAction({ email: "admin@jobscope.local", name: "Dup", password: "long-password-1", role: "support" }),
    ).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("already exists") },
    });
    expect(
      await actions.createUserAction({ email: "n@x.example", name: "N", password: "long-password-1", role: "tenant", tenantId: "nowhere" }),
    ).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('no tenant "nowhere"') },
    });
    expect(await lastAudit(db.pool)).toMatchObject({ action: "admin.user.create", outcome: "invalid" });
    expect(await counts()).toEqual(before);
  });

  it("refuses to demote the last admin, audited as refused", async () => {
    signIn(ADMIN);
    const r = await actions.setUserRoleAction({ userId: ADMIN.userId, role: "operator" });
    expect(r).toMatchObject({ ok: false, error: { code: "refused", message: expect.stringContaining("last admin") } });
    expect(await lastAudit(db.pool)).toMatchObject({ action: "admin.user.role", outcome: "refused" });
    const [row] = await execute(db.pool, sql`SELECT role FROM users WHERE id = ${ADMIN.userId}`);
    expect(row).toEqual({ role: "admin" });
  });
});

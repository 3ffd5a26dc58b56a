import { randomUUID } from "node:crypto";
import { verifyPassword } from "better-auth/crypto";
import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { setupTestDb } from "../db/test-db";
import { waitForLockWaiters } from "../db/test-wait";
import { createUser, listUsers, setUserRole } from "./users";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const db = setupTestDb({ max: 4 });
const userCount = async () => (await execute<{ n: number }>(db.pool, sql`SELECT count(*)::int AS n FROM users`))[0]!.n;
const PASSWORD = "correct-horse-battery";
let seq = 0;
const email = (p: string) => `${p}-${++seq}@example.com`;

async function addSession(userId: string) {
  await execute(
    db.pool,
    sql`INSERT INTO sessions (id, expires_at, token, user_id) VALUES (${randomUUID()}, now() + interval '1 hour', ${randomUUID()}, ${userId})`,
  );
}
const sessionsOf = async (userId: string) =>
  (await execute<{ n: number }>(db.pool, sql`SELECT count(*)::int AS n FROM sessions WHERE user_id = ${userId}`))[0]!.n;

describe("createUser", () => {
  it("stores a better-auth credential whose hash verifies the password (and only it)", async () => {
    const u = await createUser(db.pool, {
      email: "Mixed.Case@Example.com",
      name: " Mia ",
      password: PASSWORD,
      role: "tenant",
      tenantId: "acme",
      tenantOwner: true,
    });
    expect(u).toMatchObject({ email: "mixed.case@example.com", name: "Mia", role: "tenant", tenantId: "acme", tenantOwner: true });
    const [acct] = await execute<{ password: string; providerId: string }>(
      db.pool,
      sql`SELECT password, provider_id FROM accounts WHERE user_id = ${u.id}`,
    );
    expect(acct!.providerId).toBe("credential");
    expect(acct!.password).not.toContain(PASSWORD);
    expect(await verifyPassword({ hash: acct!.password, password: PASSWORD })).toBe(true);
    expect(await verifyPassword({ hash: acct!.password, password: "wrong-password-1" })).toBe(false);
    const listed = (await listUsers(db.pool)).find((r) => r.id === u.id);
    expect(listed).toEqual(u);
    expect(listed!.createdAt).toBeInstanceOf(Date);
  });

  it("lists users by role, then email", async () => {
    const zed = await createUser(db.pool, { email: email("zed"), name: "Zed", password: PASSWORD, role: "support" });
    const amy = await createUser(db.pool, { email: email("amy"), name: "Amy", password: PASSWORD, role: "support" });
    await createUser(db.pool, { email: email("zoe"), name: "Zoe", password: PASSWORD, role: "operator" });
    const list = await listUsers(db.pool);
    // Roles are plain lowercase words: their order is the same under any collation.
    const roles = list.map((r) => r.role);
    expect(roles).toEqual([...roles].sort());
    expect(list.findIndex((r) => r.id === amy.id)).toBeLessThan(list.findIndex((r) => r.id === zed.id));
  });

  it.each([
    ["a bad email", { email: "not-an-email", name: "A", password: PASSWORD, role: "support" }],
    ["a short password", { email: "a@b.example", name: "A", password: "short", role: "support" }],
    ["an unknown role", { email: "a@b.example", name: "A", password: PASSWORD, role: "root" }],
    ["a tenant member without a tenant", { email: "a@b.example", name: "A", password: PASSWORD, role: "tenant" }],
    ["staff with a tenant", { email: "a@b.example", name: "A", password: PASSWORD, role: "operator", tenantId: "acme" }],
    ["an extra field (mass assignment)", { email: "a@b.example", name: "A", password: PASSWORD, role: "support", emailVerified: true }],
  ])("refuses %s and writes nothing", async (_, input) => {
    const before = await userCount();
    await expect(createUser(db.pool, input as never)).rejects.toBeInstanceOf(ZodError);
    expect(await userCount()).toBe(before);
  });

  it("refuses a taken email and an unknown tenant, writing neither the user nor the account", async () => {
    const e = email("dup");
    await createUser(db.pool, { email: e, name: "One", password: PASSWORD, role: "support" });
    const before = await userCount();
    await expect(createUser(db.pool, { email: e.toUpperCase(), name: "Two", password: PASSWORD, role: "support" })).rejects.toMatchObject({
      code: "23505",
    });
    await expect(
      createUser(db.pool, { email: email("ghost"), name: "G", password: PASSWORD, role: "tenant", tenantId: "no-such-tenant" }),
    ).rejects.toMatchObject({ code: "23503" });
    expect(await userCount()).toBe(before);
    const [orphans] = await execute<{ n: number }>(
      db.pool,
      sql`SELECT count(*)::int AS n FROM accounts a WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = a.user_id)`,
    );
    expect(orphans!.n).toBe(0);
  });

  it("inside a caller's transaction, commits and rolls back with it", async () => {
    const e = email("rolled-back");
    await expect(
      db.pool.transaction(async (tx) => {
        await createUser(tx, { email: e, name: "R", password: PASSWORD, role: "support" });
        throw new Error("caller fails after the insert");
      }),
    ).rejects.toThrow("caller fails");
    expect(await execute(db.pool, sql`SELECT 1 FROM users WHERE email = ${e}`)).toHaveLength(0);
  });
});

describe("setUserRole", () => {
  it("changes role and tenant and ends the user's sessions, not anyone else's", async () => {
    const u = await createUser(db.pool, { email: email("mover"), name: "M", password: PASSWORD, role: "support" });
    const other = await createUser(db.pool, { email: email("bystander"), name: "B", password: PASSWORD, role: "support" });
    await addSession(u.id);
    await addSession(u.id);
    await addSession(other.id);
    const changed = await setUserRole(db.pool, { userId: u.id, role: "tenant", tenantId: "globex", tenantOwner: true });
    expect(changed).toMatchObject({ id: u.id, role: "tenant", tenantId: "globex", tenantOwner: true });
    expect(await sessionsOf(u.id)).toBe(0);
    expect(await sessionsOf(other.id)).toBe(1);
    // Back to staff: the tenant and the owner flag go.
    expect(await setUserRole(db.pool, { userId: u.id, role: "operator" })).toMatchObject({ role: "operator", tenantId: null, tenantOwner: false });
  });

  it("answers null for an unknown user and refuses bad input and extra fields", async () => {
    expect(await setUserRole(db.pool, { userId: "nobody", role: "support" })).toBeNull();
    const u = await createUser(db.pool, { email: email("strict"), name: "S", password: PASSWORD, role: "support" });
    await expect(setUserRole(db.pool, { userId: u.id, role: "tenant" })).rejects.toBeInstanceOf(ZodError);
    await expect(setUserRole(db.pool, { userId: u.id, role: "support", email: "x@y.example" } as never)).rejects.toBeInstanceOf(ZodError);
    expect((await listUsers(db.pool)).find((r) => r.id === u.id)?.role).toBe("support");
  });

  it("refuses to demote the last admin; with two, either may step down, but not both at once", async () => {
    const [{ n }] = (await execute<{ n: number }>(db.pool, sql`SELECT count(*)::int AS n FROM users WHERE role = 'admin'`)) as unknown as [
      { n: number },
    ];
    expect(n).toBe(0);
    const a = await createUser(db.pool, { email: email("admin-a"), name: "A", password: PASSWORD, role: "admin" });
    await addSession(a.id);
    await expect(setUserRole(db.pool, { userId: a.id, role: "operator" })).rejects.toMatchObject({
      code: "refused",
      message: expect.stringContaining("last admin"),
    });
    expect(await sessionsOf(a.id)).toBe(1); // nothing happened
    // Re-affirming admin is not a demotion.
    expect(await setUserRole(db.pool, { userId: a.id, role: "admin" })).toMatchObject({ role: "admin" });

    const b = await createUser(db.pool, { email: email("admin-b"), name: "B", password: PASSWORD, role: "admin" });
    // Each demotes themself at the same moment: hold both rows until both requests wait on them,
    // then let go. The admins' rows are locked before counting, so exactly one wins.
    let both!: Promise<PromiseSettledResult<unknown>[]>;
    await db.pool.transaction(async (hold) => {
      await execute(hold, sql`SELECT id FROM users WHERE id IN (${a.id}, ${b.id}) FOR UPDATE`);
      both = Promise.allSettled([setUserRole(db.pool, { userId: a.id, role: "operator" }), setUserRole(db.pool, { userId: b.id, role: "support" })]);
      await waitForLockWaiters(db.pool, 2);
    });
    const results = await both;
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: "refused", message: expect.stringContaining("last admin") });
    const admins = await execute(db.pool, sql`SELECT id FROM users WHERE role = 'admin'`);
    expect(admins).toHaveLength(1);
  });
});

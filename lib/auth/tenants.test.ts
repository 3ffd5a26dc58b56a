import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { setupTestDb } from "../db/test-db";
import { AppError } from "../result";
import { createTenant, listTenantOptions, listTenants, renameTenant } from "./tenants";
import { suspendTenant } from "./offboarding";
import { createUser } from "./users";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const db = setupTestDb({ max: 3, tenants: [] });
const count = async () => (await execute<{ n: number }>(db.pool, sql`SELECT count(*)::int AS n FROM tenants`))[0]!.n;

describe("tenants", () => {
  it("creates, lists (with their number of users) and renames a tenant; the id never changes", async () => {
    const t = await createTenant(db.pool, { id: "initech", name: "  Initech  " });
    expect(t).toMatchObject({ id: "initech", name: "Initech", users: 0 });
    await createUser(db.pool, { email: "peter@initech.example", name: "Peter", password: "long-enough-1", role: "tenant", tenantId: "initech" });
    expect((await listTenants(db.pool)).find((r) => r.id === "initech")).toMatchObject({ name: "Initech", users: 1 });
    const renamed = await renameTenant(db.pool, { id: "initech", name: "Initech Corp" });
    expect(renamed).toMatchObject({ id: "initech", name: "Initech Corp", users: 1 });
    expect(await renameTenant(db.pool, { id: "nobody", name: "X" })).toBeNull();
  });

  it("offers every tenant to a picker by id, and only those not suspended when asked", async () => {
    await createTenant(db.pool, { id: "opt-b", name: "Bravo" });
    await createTenant(db.pool, { id: "opt-a", name: "Alpha" });
    await db.pool.transaction((tx) => suspendTenant(tx, "opt-b"));
    const ours = (options: { id: string }[]) => options.filter((t) => t.id.startsWith("opt-"));
    expect(ours(await listTenantOptions(db.pool))).toEqual([
      { id: "opt-a", name: "Alpha" },
      { id: "opt-b", name: "Bravo" },
    ]);
    expect(ours(await listTenantOptions(db.pool, { activeOnly: true }))).toEqual([{ id: "opt-a", name: "Alpha" }]);
  });

  it("keeps a name with markup verbatim (the console renders it as text)", async () => {
    const name = `<script>alert(1)</script><img src=x onerror="alert(2)"> & "quotes"`;
    await createTenant(db.pool, { id: "markup", name });
    expect((await listTenants(db.pool)).find((r) => r.id === "markup")?.name).toBe(name);
  });

  it("refuses a taken id without touching the existing tenant", async () => {
    await createTenant(db.pool, { id: "taken", name: "First" });
    await expect(createTenant(db.pool, { id: "taken", name: "Second" })).rejects.toBeInstanceOf(AppError);
    expect((await listTenants(db.pool)).find((r) => r.id === "taken")?.name).toBe("First");
  });

  it.each([
    ["an id with capitals", { id: "Acme", name: "A" }],
    ["an id with a space", { id: "a b", name: "A" }],
    ["an id ending in a dash", { id: "acme-", name: "A" }],
    ["an empty id", { id: "", name: "A" }],
    ["an id of 41 characters", { id: "a".repeat(41), name: "A" }],
    ["an empty name", { id: "ok-id", name: "   " }],
    ["a name with a control character", { id: "ok-id", name: "a\u0000b" }],
    ["a name of 201 characters", { id: "ok-id", name: "n".repeat(201) }],
    ["an extra field (mass assignment)", { id: "ok-id", name: "A", createdAt: "2020-01-01" }],
  ])("refuses %s and writes nothing", async (_, input) => {
    const before = await count();
    await expect(createTenant(db.pool, input as never)).rejects.toBeInstanceOf(ZodError);
    expect(await count()).toBe(before);
  });

  it("refuses a rename carrying extra fields or a bad name, and changes nothing", async () => {
    await createTenant(db.pool, { id: "stable", name: "Stable" });
    await expect(renameTenant(db.pool, { id: "stable", name: "X", role: "admin" } as never)).rejects.toBeInstanceOf(ZodError);
    await expect(renameTenant(db.pool, { id: "stable", name: "" })).rejects.toBeInstanceOf(ZodError);
    expect((await listTenants(db.pool)).find((r) => r.id === "stable")?.name).toBe("Stable");
  });
});

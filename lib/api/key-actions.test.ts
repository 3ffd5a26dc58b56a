import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Viewer } from "../auth/viewer";
import { setupTestDb } from "../db/test-db";
import { createApiKey, listApiKeys, revokeApiKey, verifyApiKey } from "./keys";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// The API keys page's server actions, called directly as a crafted POST would call them.
// Only the session is stood in for (who is signed in); the database is real, as the console's role.
let signedIn: Viewer | null = null;
vi.mock("@/lib/auth/viewer", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/auth/viewer")>()),
  authorize: async () =>
    signedIn ? { ok: true, viewer: signedIn } : { ok: false, status: 401, code: "unauthenticated", message: "Sign in to do this.", viewer: null },
}));

const person = (email: string, role: Viewer["role"], tenantId: string | null, tenantOwner = false): Viewer => ({
  userId: `u-${email}`,
  email,
  name: email,
  role,
  tenantId,
  tenantOwner,
});
const ADMIN = person("admin@jobscope.local", "admin", null);
const ACME_OWNER = person("dana@acme.example", "tenant", "acme", true);
const GLOBEX_OWNER = person("owner@globex.example", "tenant", "globex", true);
const GLOBEX_MEMBER = person("lee@globex.example", "tenant", "globex");
const OPERATOR = person("operator@jobscope.local", "operator", null);

const db = setupTestDb({ consolePool: true });
let actions: typeof import("@/app/api-keys/actions");

const keyCount = () => execute<{ n: number }>(db.pool, sql`SELECT count(*)::int AS n FROM api_keys`).then((r) => r[0]!.n);
const auditOf = (actor: string) =>
  execute<{ action: string; outcome: string }>(db.pool, sql`SELECT action, outcome FROM audit_log WHERE actor = ${actor} ORDER BY id`);

beforeAll(async () => {
  actions = await import("@/app/api-keys/actions");
});

describe("API key server actions", () => {
  it("a tenant owner creates a key for their tenant; the secret comes back once and authenticates", async () => {
    signedIn = ACME_OWNER;
    const r = await actions.createApiKeyAction({ tenantId: "acme", name: "billing" });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.data.tenantId).toBe("acme");
    expect(await verifyApiKey(db.pool, `Bearer ${r.data.secret}`)).toMatchObject({ tenantId: "acme" });
  });

  it("refuses, audits and writes nothing for: another tenant's key, a plain member, an operator, nobody, extra fields", async () => {
    const before = await keyCount();
    signedIn = GLOBEX_OWNER;
    expect(await actions.createApiKeyAction({ tenantId: "acme", name: "sneaky" })).toMatchObject({ ok: false, error: { code: "forbidden" } });
    signedIn = GLOBEX_MEMBER;
    expect(await actions.createApiKeyAction({ tenantId: "globex", name: "mine" })).toMatchObject({ ok: false, error: { code: "forbidden" } });
    signedIn = OPERATOR;
    expect(await actions.createApiKeyAction({ tenantId: "globex", name: "ops" })).toMatchObject({ ok: false, error: { code: "forbidden" } });
    signedIn = null;
    expect(await actions.createApiKeyAction({ tenantId: "globex", name: "anon" })).toMatchObject({ ok: false, error: { code: "forbidden" } });
    signedIn = ADMIN;
    const extra = await actions.createApiKeyAction({ tenantId: "globex", name: "x", createdBy: "someone-else" });
    expect(extra).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    expect(await keyCount()).toBe(before);
    expect(await auditOf(GLOBEX_OWNER.email)).toEqual([{ action: "api_key.create", outcome: "denied" }]);
    expect(await auditOf(GLOBEX_MEMBER.email)).toEqual([{ action: "api_key.create", outcome: "denied" }]);
    expect(await auditOf(OPERATOR.email)).toEqual([{ action: "api_key.create", outcome: "denied" }]);
    expect(await auditOf("anonymous")).toEqual([{ action: "api_key.create", outcome: "denied" }]);
  });

  it("another tenant's owner cannot revoke a key (not found, the key still works); an admin can", async () => {
    signedIn = ADMIN;
    const made = await actions.createApiKeyAction({ tenantId: "acme", name: "for revoking" });
    if (!made.ok) throw new Error(made.error.message);
    const [row] = await execute<{ id: string }>(db.pool, sql`SELECT id FROM api_keys WHERE prefix = ${made.data.prefix}`);

    signedIn = GLOBEX_OWNER;
    expect(await actions.revokeApiKeyAction({ id: row!.id })).toMatchObject({ ok: false, error: { code: "not_found" } });
    signedIn = GLOBEX_MEMBER;
    expect(await actions.revokeApiKeyAction({ id: row!.id })).toMatchObject({ ok: false, error: { code: "forbidden" } });
    expect(await verifyApiKey(db.pool, `Bearer ${made.data.secret}`)).not.toBeNull();

    signedIn = ADMIN;
    expect(await actions.revokeApiKeyAction({ id: row!.id })).toEqual({ ok: true, data: { prefix: made.data.prefix } });
    expect(await verifyApiKey(db.pool, `Bearer ${made.data.secret}`)).toBeNull();
    expect((await auditOf(GLOBEX_OWNER.email)).at(-1)).toEqual({ action: "api_key.revoke", outcome: "refused" });
  });
});

describe("listApiKeys (the page's read, through drizzle's query builder)", () => {
  it("lists one tenant's keys, live ones newest first, revoked ones last, as typed rows without the hash", async () => {
    const by = { actor: ADMIN.email, userId: ADMIN.userId, role: ADMIN.role, tenantId: null };
    const old = await createApiKey(db.pool, { tenantId: "globex", name: "old" }, by);
    const revoked = await createApiKey(db.pool, { tenantId: "globex", name: "revoked" }, by);
    const fresh = await createApiKey(db.pool, { tenantId: "globex", name: "fresh" }, by);
    await revokeApiKey(db.pool, { id: revoked.key.id, tenantId: "globex" }, by);

    const keys = await listApiKeys(db.pool, "globex");
    expect(keys.every((k) => k.tenantId === "globex")).toBe(true);
    const live = keys.filter((k) => k.revokedAt === null);
    expect(keys.slice(0, live.length)).toEqual(live);
    expect(live.findIndex((k) => k.id === fresh.key.id)).toBeLessThan(live.findIndex((k) => k.id === old.key.id));
    expect(keys.at(-1)).toMatchObject({ id: revoked.key.id, name: "revoked" });
    expect(keys.at(-1)!.revokedAt).toBeInstanceOf(Date);
    expect(fresh.key.createdAt).toBeInstanceOf(Date);
    expect(Object.keys(keys[0]!).sort()).toEqual(["createdAt", "createdBy", "id", "lastUsedAt", "name", "prefix", "revokedAt", "tenantId"]);
  });
});

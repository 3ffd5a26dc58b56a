import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey, verifyApiKey } from "../api/keys";
import { createAnonymousAuditor } from "../audit/anonymous";
import { setupTestDb } from "../db/test-db";
import { CLIENT_ADDRESS_HEADER } from "../http/client-address";
import { closeDb, connect, type Tx } from "../db/client";
import { withScope } from "../db/scope";
import { newJob } from "../jobs/test-helpers";
import { createAuth } from "./auth";
import { deactivateUser, reactivateUser, resetPassword, resumeTenant, suspendTenant } from "./offboarding";
import { createUser, type NewUser } from "./users";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const db = setupTestDb({ max: 3 });
let auth: ReturnType<typeof createAuth>;
const PASSWORD = "offboard-password-1";
const headers = (extra: Record<string, string> = {}) => new Headers({ host: "localhost:3000", [CLIENT_ADDRESS_HEADER]: "192.0.2.200", ...extra });

beforeAll(async () => {
  const anonymous = createAnonymousAuditor(() => db.pool);
  auth = createAuth({
    url: db.roleUrl("app"),
    secret: "a-test-secret-of-at-least-32-characters!",
    auditDb: () => db.pool,
    anonymous: () => anonymous,
    limits: { perAddressPerMinute: 1000, failuresPerAccount: 1000, failuresPerAddress: 1000, lockSeconds: 60, slowdownMs: 0 },
  });
});
/** Sign in through better-auth; the session cookie, or the refusal's status and message. */
async function signIn(email: string, password = PASSWORD): Promise<{ cookie: string } | { status: number; message: string }> {
  try {
    const r = await auth.api.signInEmail({ body: { email, password }, headers: headers(), returnHeaders: true });
    return { cookie: r.headers.get("set-cookie")!.split(";")[0]! };
  } catch (e) {
    const err = e as { statusCode?: number; message?: string };
    return { status: err.statusCode ?? 500, message: err.message ?? "" };
  }
}
const sessionOf = async (cookie: string) => auth.api.getSession({ headers: headers({ cookie }) });

/** A new user with the test's password (named after their address), signed in: the row and the session cookie. */
async function signedInUser(email: string, membership: Pick<NewUser, "role" | "tenantId" | "tenantOwner">) {
  const user = await createUser(db.pool, { email, name: email.split("@")[0]!, password: PASSWORD, ...membership });
  const signedIn = await signIn(email);
  if (!("cookie" in signedIn)) throw new Error(`could not sign in as ${email}`);
  return { user, cookie: signedIn.cookie };
}

const tx = <T>(fn: (t: Tx) => Promise<T>) => db.pool.transaction(fn) as Promise<T>;

describe("offboarding: deactivated users, suspended tenants, password resets", () => {
  it("deactivating a user ends their sessions and their API keys at once, and they cannot sign in until reactivated", async () => {
    const { user: u, cookie } = await signedInUser("leaver@acme.example", { role: "tenant", tenantId: "acme", tenantOwner: true });
    const key = await createApiKey(db.pool, { tenantId: "acme", name: "theirs" }, { userId: u.id, actor: u.email, role: "tenant", tenantId: "acme" });
    expect(await sessionOf(cookie)).not.toBeNull();
    expect(await verifyApiKey(db.pool, `Bearer ${key.secret}`)).not.toBeNull();

    const r = await tx((t) => deactivateUser(t, u.id, { userId: "someone-else" }));
    expect(r).toEqual({ email: u.email, sessionsEnded: 1, keysRevoked: 1 });
    expect(await sessionOf(cookie)).toBeNull();
    expect(await verifyApiKey(db.pool, `Bearer ${key.secret}`)).toBeNull();
    expect(await signIn(u.email)).toEqual({ status: 403, message: "This account is deactivated: ask an administrator." });

    await tx((t) => reactivateUser(t, u.id));
    expect(await signIn(u.email)).toHaveProperty("cookie");
  });

  it("suspending a tenant stops its members and its keys; resuming brings both back; staff still read its jobs", async () => {
    const { user: u, cookie } = await signedInUser("member@globex.example", { role: "tenant", tenantId: "globex" });
    const key = await createApiKey(db.pool, { tenantId: "globex", name: "ci" }, { userId: null, actor: "admin@x", role: "admin", tenantId: null });
    const job = await newJob(db.pool, { tenantId: "globex" });

    expect(await tx((t) => suspendTenant(t, "globex"))).toEqual({ sessionsEnded: 1 });
    expect(await sessionOf(cookie)).toBeNull();
    expect(await verifyApiKey(db.pool, `Bearer ${key.secret}`)).toBeNull();
    expect(await signIn(u.email)).toMatchObject({ status: 403, message: expect.stringContaining("suspended") });
    const app = connect(db.roleUrl("app"), { max: 1 });
    try {
      const seen = await withScope(app, { all: true }, (t) => execute(t, sql`SELECT state FROM jobs WHERE id = ${job.id}`));
      expect(seen).toEqual([{ state: "queued" }]);
    } finally {
      await closeDb(app);
    }

    expect(await tx((t) => resumeTenant(t, "globex"))).toBe(true);
    expect(await verifyApiKey(db.pool, `Bearer ${key.secret}`)).not.toBeNull();
    expect(await signIn(u.email)).toHaveProperty("cookie");
  });

  it("a password reset replaces the password and ends the sessions", async () => {
    const { user: u, cookie } = await signedInUser("forgetful@acme.example", { role: "support" });
    await tx((t) => resetPassword(t, u.id, "a-brand-new-password"));
    expect(await sessionOf(cookie)).toBeNull();
    expect(await signIn(u.email)).toMatchObject({ status: 401 });
    expect(await signIn(u.email, "a-brand-new-password")).toHaveProperty("cookie");
  });

  it("refuses to deactivate yourself or the last active admin", async () => {
    const admin = await createUser(db.pool, { email: "only-admin@x.example", name: "A", password: PASSWORD, role: "admin" });
    await expect(tx((t) => deactivateUser(t, admin.id, { userId: admin.id }))).rejects.toMatchObject({
      code: "refused",
      message: expect.stringContaining("yourself"),
    });
    await expect(tx((t) => deactivateUser(t, admin.id, { userId: "another" }))).rejects.toMatchObject({
      code: "refused",
      message: expect.stringContaining("last admin"),
    });
    const [row] = await execute<{ deactivatedAt: Date | null }>(db.pool, sql`SELECT deactivated_at FROM users WHERE id = ${admin.id}`);
    expect(row?.deactivatedAt).toBeNull();
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { createAnonymousAuditor } from "../audit/anonymous";
import { setupTestDb } from "../db/test-db";
import { CLIENT_ADDRESS_HEADER } from "../http/client-address";
import { createAuth } from "./auth";
import type { SignInLimits } from "./sign-in-guard";
import { createUser } from "./users";

const db = setupTestDb({ max: 3 });
const PASSWORD = "right-password-1";
const OPERATOR = "op@guard.example";
const OTHER = "other@guard.example";

beforeAll(async () => {
  await createUser(db.sql, { email: OPERATOR, name: "Op", password: PASSWORD, role: "operator" });
  await createUser(db.sql, { email: OTHER, name: "Other", password: PASSWORD, role: "support" });
});
const LOOSE: SignInLimits = { perAddressPerMinute: 1000, failuresPerAccount: 1000, failuresPerAddress: 1000, lockSeconds: 60, slowdownMs: 0 };

/** A better-auth instance of its own (its own counters), as the web app builds it, on the test database. */
function setup(limits: Partial<SignInLimits> = {}) {
  const anonymous = createAnonymousAuditor(() => db.sql, { windowMs: 60_000 });
  const auth = createAuth({
    url: db.roleUrl("app"),
    secret: "a-test-secret-of-at-least-32-characters!",
    auditDb: () => db.sql,
    anonymous: () => anonymous,
    limits: { ...LOOSE, ...limits },
  });
  return { auth, anonymous };
}

const from = (address: string, extra: Record<string, string> = {}) => new Headers({ host: "localhost:3000", [CLIENT_ADDRESS_HEADER]: address, ...extra });

/** The console's server action path: auth.api.signInEmail. Resolves to the HTTP-like status. */
async function viaAction(auth: ReturnType<typeof createAuth>, email: string, password: string, address: string): Promise<number> {
  try {
    await auth.api.signInEmail({ body: { email, password }, headers: from(address) });
    return 200;
  } catch (e) {
    return (e as { statusCode?: number }).statusCode ?? 500;
  }
}

/** The HTTP path: POST /api/auth/sign-in/email. */
async function viaHttp(auth: ReturnType<typeof createAuth>, email: string, password: string, address: string, extra: Record<string, string> = {}) {
  const res = await auth.handler(
    new Request("http://localhost:3000/api/auth/sign-in/email", {
      method: "POST",
      headers: from(address, { "content-type": "application/json", origin: "http://localhost:3000", ...extra }),
      body: JSON.stringify({ email, password }),
    }),
  );
  return res;
}

async function auditRows(action: string, since: number) {
  return db.sql<{ actor: string; outcome: string; reason: string; repeatCount: number; userId: string | null }[]>`
    SELECT actor, outcome, reason, repeat_count, user_id FROM audit_log WHERE action = ${action} AND id > ${since} ORDER BY id`;
}
const lastId = async () => (await db.sql<{ id: number }[]>`SELECT coalesce(max(id), 0)::int AS id FROM audit_log`)[0]!.id;

describe("sign-in limits hold on every path (issue 16: the form's server action bypassed the limiter)", () => {
  it("wrong passwords through the server action lock the account: the right one is then refused too", async () => {
    const { auth } = setup({ failuresPerAccount: 5 });
    for (let i = 0; i < 5; i++) expect(await viaAction(auth, OPERATOR, "wrong-password", `198.51.100.${i}`)).toBe(401);
    expect(await viaAction(auth, OPERATOR, PASSWORD, "198.51.100.77")).toBe(429);
    // Another account is not affected.
    expect(await viaAction(auth, OTHER, PASSWORD, "198.51.100.77")).toBe(200);
  });

  it("the HTTP route and the server action share the count", async () => {
    const { auth } = setup({ failuresPerAccount: 4 });
    for (let i = 0; i < 2; i++) expect((await viaHttp(auth, OTHER, "wrong-password", "192.0.2.10")).status).toBe(401);
    for (let i = 0; i < 2; i++) expect(await viaAction(auth, OTHER, "wrong-password", "192.0.2.11")).toBe(401);
    expect((await viaHttp(auth, OTHER, PASSWORD, "192.0.2.12")).status).toBe(429);
    expect(await viaAction(auth, OTHER, PASSWORD, "192.0.2.12")).toBe(429);
  });

  it("limits one address across accounts, and a spoofed X-Forwarded-For does not reset it", async () => {
    const { auth } = setup({ perAddressPerMinute: 3 });
    for (let i = 0; i < 3; i++) {
      const res = await viaHttp(auth, OPERATOR, PASSWORD, "203.0.113.50", { "x-forwarded-for": `10.0.0.${i}` });
      expect(res.status).toBe(200);
    }
    expect((await viaHttp(auth, OTHER, PASSWORD, "203.0.113.50", { "x-forwarded-for": "10.9.9.9" })).status).toBe(429);
    expect(await viaAction(auth, OTHER, PASSWORD, "203.0.113.50")).toBe(429);
    expect(await viaAction(auth, OTHER, PASSWORD, "203.0.113.51")).toBe(200);
  });

  it("failures from one address lock it for every account", async () => {
    const { auth } = setup({ failuresPerAddress: 3 });
    for (const email of [OPERATOR, OTHER, "nobody@guard.example"]) expect(await viaAction(auth, email, "wrong-password", "203.0.113.60")).toBe(401);
    expect(await viaAction(auth, OTHER, PASSWORD, "203.0.113.60")).toBe(429);
  });

  it("slows down repeated failures: each waits twice as long as the last, up to 16×", async () => {
    const { auth } = setup({ slowdownMs: 40 });
    const times: number[] = [];
    for (let i = 0; i < 6; i++) {
      const t0 = Date.now();
      expect(await viaAction(auth, "slow@guard.example", "wrong-password", "203.0.113.70")).toBe(401);
      times.push(Date.now() - t0);
    }
    const floors = [40, 80, 160, 320, 640, 640];
    times.forEach((ms, i) => expect(ms, `failure ${i + 1}`).toBeGreaterThanOrEqual(floors[i]! - 5));
  });
});

describe("the audit log records sign-in, sign-out, password and name changes", () => {
  it("a failed sign-in is audited (aggregated per address), a successful one and a sign-out too", async () => {
    const { auth, anonymous } = setup();
    const since = await lastId();
    for (let i = 0; i < 3; i++) expect(await viaAction(auth, OPERATOR, "wrong-password", "203.0.113.80")).toBe(401);
    const ok = await auth.api.signInEmail({ body: { email: OPERATOR, password: PASSWORD }, headers: from("203.0.113.80"), returnHeaders: true });
    const cookie = ok.headers.get("set-cookie")!.split(";")[0]!;
    await auth.api.signOut({ headers: from("203.0.113.80", { cookie }) });
    await anonymous.flush();
    const failed = await auditRows("auth.sign_in", since);
    expect(failed.filter((r) => r.outcome === "denied").map((r) => [r.actor, r.repeatCount])).toEqual([
      ["anonymous", 1],
      ["anonymous", 2],
    ]);
    expect(failed.find((r) => r.outcome === "denied")!.reason).toContain(`wrong password for account ${OPERATOR}`);
    expect(failed.find((r) => r.outcome === "applied")).toMatchObject({ actor: OPERATOR, reason: "signed in from 203.0.113.80" });
    expect(await auditRows("auth.sign_out", since)).toEqual([expect.objectContaining({ actor: OPERATOR, outcome: "applied" })]);
  });

  it("a password change and a display-name change are audited; a wrong current password as denied", async () => {
    const { auth } = setup();
    const email = "changer@guard.example";
    await createUser(db.sql, { email, name: "Changer", password: PASSWORD, role: "support" });
    const since = await lastId();
    const ok = await auth.api.signInEmail({ body: { email, password: PASSWORD }, headers: from("203.0.113.90"), returnHeaders: true });
    const headers = from("203.0.113.90", { cookie: ok.headers.get("set-cookie")!.split(";")[0]! });
    await auth.api.updateUser({ body: { name: "Changed" }, headers });
    await expect(auth.api.changePassword({ body: { currentPassword: "not-my-password", newPassword: "another-password-2" }, headers })).rejects.toThrow();
    await auth.api.changePassword({ body: { currentPassword: PASSWORD, newPassword: "another-password-2" }, headers });
    expect(await auditRows("auth.name_change", since)).toEqual([expect.objectContaining({ actor: email, outcome: "applied" })]);
    expect((await auditRows("auth.password_change", since)).map((r) => r.outcome)).toEqual(["denied", "applied"]);
  });
});

describe("revoke-session", () => {
  it("another user's session token is 404 (was 200, revoking nothing); the caller's own is revoked", async () => {
    const { auth } = setup();
    const signIn = async (email: string) => {
      const r = await auth.api.signInEmail({ body: { email, password: PASSWORD }, headers: from("203.0.113.99"), returnHeaders: true });
      return { token: r.response.token, cookie: r.headers.get("set-cookie")!.split(";")[0]! };
    };
    const a = await signIn(OTHER);
    const b = await signIn(OPERATOR);
    const res = await auth.handler(
      new Request("http://localhost:3000/api/auth/revoke-session", {
        method: "POST",
        headers: from("203.0.113.99", { "content-type": "application/json", origin: "http://localhost:3000", cookie: a.cookie }),
        body: JSON.stringify({ token: b.token }),
      }),
    );
    expect(res.status).toBe(404);
    const [still] = await db.sql`SELECT 1 AS one FROM sessions WHERE token = ${b.token}`;
    expect(still).toBeDefined();
    const own = await signIn(OTHER);
    await auth.api.revokeSession({ body: { token: own.token }, headers: from("203.0.113.99", { cookie: a.cookie }) });
    const [gone] = await db.sql`SELECT 1 AS one FROM sessions WHERE token = ${own.token}`;
    expect(gone).toBeUndefined();
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { createAnonymousAuditor } from "../audit/anonymous";
import { setupTestDb } from "../db/test-db";
import { CLIENT_ADDRESS_HEADER } from "../http/client-address";
import { createAuth } from "./auth";
import { createPasswordWork, withPasswordScope, type PasswordWorkLimits } from "./password-work";
import type { SignInLimits } from "./sign-in-guard";
import { createUser } from "./users";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const db = setupTestDb({ max: 3 });
const PASSWORD = "right-password-1";
const OPERATOR = "op@guard.example";
const OTHER = "other@guard.example";

beforeAll(async () => {
  await createUser(db.pool, { email: OPERATOR, name: "Op", password: PASSWORD, role: "operator" });
  await createUser(db.pool, { email: OTHER, name: "Other", password: PASSWORD, role: "support" });
});
const LOOSE: SignInLimits = { perAddressPerMinute: 1000, failuresPerAccount: 1000, failuresPerAddress: 1000, lockSeconds: 60, slowdownMs: 0 };

/** A better-auth instance of its own (its own counters), as the web app builds it, on the test database. */
function setup(limits: Partial<SignInLimits> = {}, work: PasswordWorkLimits = { concurrency: 2, queue: 100, reserve: 0 }) {
  const anonymous = createAnonymousAuditor(() => db.pool, { windowMs: 60_000 });
  const passwords = createPasswordWork(work);
  const auth = createAuth({
    url: db.roleUrl("app"),
    secret: "a-test-secret-of-at-least-32-characters!",
    auditDb: () => db.pool,
    anonymous: () => anonymous,
    limits: { ...LOOSE, ...limits },
    work: passwords,
  });
  return { auth, anonymous, passwords };
}

/** The cookies a response sets, as a Cookie header ("a=1; b=2"). */
const cookiesOf = (headers: Headers) =>
  headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .join("; ");

/** The HTTP path as the web app serves it: in a password scope (app/api/auth/[...all]/route.ts). */
const viaRoute = (auth: ReturnType<typeof createAuth>, email: string, password: string, address: string, extra: Record<string, string> = {}) =>
  withPasswordScope(() => viaHttp(auth, email, password, address, extra));

const from = (address: string, extra: Record<string, string> = {}) =>
  new Headers({ host: "localhost:3000", [CLIENT_ADDRESS_HEADER]: address, ...extra });

/** The console's server action path: auth.api.signInEmail. Resolves to the HTTP-like status. */
async function viaAction(auth: ReturnType<typeof createAuth>, email: string, password: string, address: string, cookie?: string): Promise<number> {
  try {
    await auth.api.signInEmail({ body: { email, password }, headers: from(address, cookie ? { cookie } : {}) });
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
  return execute<{ actor: string; outcome: string; reason: string; repeatCount: number; userId: string | null }>(
    db.pool,
    sql`
    SELECT actor, outcome, reason, repeat_count, user_id FROM audit_log WHERE action = ${action} AND id > ${since} ORDER BY id`,
  );
}
const lastId = async () => (await execute<{ id: number }>(db.pool, sql`SELECT coalesce(max(id), 0)::int AS id FROM audit_log`))[0]!.id;

describe("sign-in limits hold on every path, the form's server action included", () => {
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

describe("password hashing is bounded: a flood of sign-ins is told to try again, not hashed", () => {
  it("at most concurrency + queue hashes are asked for at once; more are refused at once with 503 and Retry-After", async () => {
    const work = createPasswordWork({ concurrency: 1, queue: 2, reserve: 3 });
    const asks = Array.from({ length: 8 }, (_, i) =>
      work.hash(`password-${i}`).then(
        () => "hashed",
        (e: { statusCode?: number; headers?: Record<string, string> }) => e,
      ),
    );
    const results = await Promise.all(asks);
    expect(results.filter((r) => r === "hashed")).toHaveLength(3);
    const refused = results.filter((r) => r !== "hashed") as { statusCode?: number; headers?: Record<string, string> }[];
    expect(refused).toHaveLength(5);
    for (const r of refused) expect(r).toMatchObject({ statusCode: 503, headers: { "Retry-After": "2" } });
    // A known device's sign-in may use the reserve.
    const known = await withPasswordScope(async () => {
      const scope = (await import("./password-work")).currentPasswordScope()!;
      scope.knownDevice = true;
      return Promise.all(
        Array.from({ length: 8 }, () =>
          work.hash("x").then(
            () => "hashed",
            () => "refused",
          ),
        ),
      );
    });
    expect(known.filter((r) => r === "hashed")).toHaveLength(6);
  });

  it("40 wrong sign-ins at once from 40 addresses: the ones without room get 503 early, none is a 500; a known device still signs in", async () => {
    const { auth, passwords } = setup({ slowdownMs: 0 }, { concurrency: 1, queue: 2, reserve: 4 });
    const first = await viaRoute(auth, OPERATOR, PASSWORD, "198.18.10.1");
    expect(first.status).toBe(200);
    const device = cookiesOf(first.headers);
    expect(device).toMatch(/better-auth\.device=/);
    const flood = Array.from({ length: 40 }, (_, i) => viaRoute(auth, `stranger${i}@guard.example`, "wrong-password", `198.18.11.${i + 1}`));
    const mine = viaRoute(auth, OPERATOR, PASSWORD, "198.18.10.1", { cookie: device });
    const statuses = await Promise.all(
      flood.map(async (r) => {
        const res = await r;
        return { status: res.status, retryAfter: res.headers.get("retry-after") };
      }),
    );
    expect(statuses.every((s) => s.status === 401 || s.status === 503)).toBe(true);
    const refused = statuses.filter((s) => s.status === 503);
    expect(refused.length).toBeGreaterThanOrEqual(40 - 3 - 4);
    expect(refused.every((s) => s.retryAfter === "2")).toBe(true);
    expect((await mine).status).toBe(200);
    expect(passwords.demand()).toBe(0);
  });
});

describe("lockout cannot be used to keep an account's owner out (device cookies)", () => {
  it("strangers' wrong passwords lock the account for strangers; its owner signs in from a browser they used before", async () => {
    const { auth } = setup({ failuresPerAccount: 3 });
    const email = "locked@guard.example";
    await createUser(db.pool, { email, name: "Locked", password: PASSWORD, role: "admin" });
    const before = await viaRoute(auth, email, PASSWORD, "192.0.2.40");
    expect(before.status).toBe(200);
    const device = cookiesOf(before.headers);
    for (let i = 0; i < 3; i++) expect((await viaRoute(auth, email, "wrong-password", `192.0.2.${50 + i}`)).status).toBe(401);
    // A new browser is refused, right password included …
    expect((await viaRoute(auth, email, PASSWORD, "192.0.2.41")).status).toBe(429);
    expect(await viaAction(auth, email, PASSWORD, "192.0.2.41")).toBe(429);
    // … the owner's known browser is not, through either path.
    expect((await viaRoute(auth, email, PASSWORD, "192.0.2.40", { cookie: device })).status).toBe(200);
    expect(await withPasswordScope(() => viaAction(auth, email, PASSWORD, "192.0.2.40", device))).toBe(200);
    // Its strangers' lock stands: signing in from a known device does not clear it.
    expect((await viaRoute(auth, email, PASSWORD, "192.0.2.42")).status).toBe(429);
  });

  it("a device cookie is the account's own, signed, and its own failures lock only it", async () => {
    const { auth } = setup({ failuresPerAccount: 2 });
    const other = cookiesOf((await viaRoute(auth, OTHER, PASSWORD, "192.0.2.60")).headers);
    for (let i = 0; i < 2; i++) expect((await viaRoute(auth, OPERATOR, "wrong-password", `192.0.2.${61 + i}`)).status).toBe(401);
    // Another account's cookie, or a forged one, is no device of this account.
    expect((await viaRoute(auth, OPERATOR, PASSWORD, "192.0.2.63", { cookie: other })).status).toBe(429);
    const forged = other.replace(/=([^.]*)\./, "=AAAA.");
    expect((await viaRoute(auth, OPERATOR, PASSWORD, "192.0.2.63", { cookie: forged })).status).toBe(429);
    // Wrong passwords with a valid cookie lock that cookie, not the account for other strangers' browsers.
    for (let i = 0; i < 2; i++) expect((await viaRoute(auth, OTHER, "wrong-password", "192.0.2.64", { cookie: other })).status).toBe(401);
    expect((await viaRoute(auth, OTHER, PASSWORD, "192.0.2.64", { cookie: other })).status).toBe(429);
    expect((await viaRoute(auth, OTHER, PASSWORD, "192.0.2.65")).status).toBe(200);
  });
});

describe("a changed password ends the account's other sessions", () => {
  it("whatever the caller asks, other sessions are deleted and the changing session goes on", async () => {
    const { auth } = setup();
    const email = "rotator@guard.example";
    await createUser(db.pool, { email, name: "Rotator", password: PASSWORD, role: "support" });
    const signIn = async () => cookiesOf((await viaRoute(auth, email, PASSWORD, "192.0.2.70")).headers);
    const laptop = await signIn();
    const phone = await signIn();
    const res = await auth.api.changePassword({
      body: { currentPassword: PASSWORD, newPassword: "another-password-3", revokeOtherSessions: false },
      headers: from("192.0.2.70", { cookie: laptop }),
      returnHeaders: true,
    });
    expect(await auth.api.getSession({ headers: from("192.0.2.71", { cookie: phone }) })).toBeNull();
    const renewed = cookiesOf(res.headers) || laptop;
    expect(await auth.api.getSession({ headers: from("192.0.2.70", { cookie: renewed }) })).toMatchObject({ user: { email } });
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
    // This address's rows only: an earlier test's window may close (and be written) meanwhile.
    expect(failed.filter((r) => r.outcome === "denied" && r.reason.includes("203.0.113.80")).map((r) => [r.actor, r.repeatCount])).toEqual([
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
    await createUser(db.pool, { email, name: "Changer", password: PASSWORD, role: "support" });
    const since = await lastId();
    const ok = await auth.api.signInEmail({ body: { email, password: PASSWORD }, headers: from("203.0.113.90"), returnHeaders: true });
    const headers = from("203.0.113.90", { cookie: ok.headers.get("set-cookie")!.split(";")[0]! });
    await auth.api.updateUser({ body: { name: "Changed" }, headers });
    await expect(
      auth.api.changePassword({ body: { currentPassword: "not-my-password", newPassword: "another-password-2" }, headers }),
    ).rejects.toThrow();
    await auth.api.changePassword({ body: { currentPassword: PASSWORD, newPassword: "another-password-2" }, headers });
    expect(await auditRows("auth.name_change", since)).toEqual([expect.objectContaining({ actor: email, outcome: "applied" })]);
    expect((await auditRows("auth.password_change", since)).map((r) => r.outcome)).toEqual(["denied", "applied"]);
  });
});

describe("better-auth's endpoints refuse text PostgreSQL cannot store", () => {
  it("a NUL or a lone surrogate in a body field is a 400 naming it, not a 500", async () => {
    const { auth } = setup();
    const cookie = cookiesOf((await viaRoute(auth, OTHER, PASSWORD, "192.0.2.80")).headers);
    for (const name of ["Na\u0000me", "Name\ud800"]) {
      const res = await auth.handler(
        new Request("http://localhost:3000/api/auth/update-user", {
          method: "POST",
          headers: from("192.0.2.80", { "content-type": "application/json", origin: "http://localhost:3000", cookie }),
          body: JSON.stringify({ name }),
        }),
      );
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(/^name contains/);
    }
    const [me] = await execute<{ name: string }>(db.pool, sql`SELECT name FROM users WHERE email = ${OTHER}`);
    expect(me!.name).toBe("Other");
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
    const [still] = await execute(db.pool, sql`SELECT 1 AS one FROM sessions WHERE token = ${b.token}`);
    expect(still).toBeDefined();
    const own = await signIn(OTHER);
    await auth.api.revokeSession({ body: { token: own.token }, headers: from("203.0.113.99", { cookie: a.cookie }) });
    const [gone] = await execute(db.pool, sql`SELECT 1 AS one FROM sessions WHERE token = ${own.token}`);
    expect(gone).toBeUndefined();
  });
});

import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthMiddleware, getSessionFromCtx, isAPIError } from "better-auth/api";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { AuditAction } from "../audit/actions";
import type { AnonymousAuditor } from "../audit/anonymous";
import { recordAudit, type AuditOutcome } from "../audit/audit";
import type { Db } from "../db/client";
import { clientAddressOf } from "../http/client-address";
import { describeBadText, findBadText } from "../input";
import { DEVICE_COOKIE, DEVICE_MAX_AGE_SECONDS, deviceFor, deviceValue, type Device } from "./device";
import { busy, currentPasswordScope, type PasswordWork } from "./password-work";
import { ROLES, type Role } from "./permissions";

/** How hard sign-in is to guess at. Each limit holds on every sign-in path (the console's form and `POST /api/auth/sign-in/email`). */
export type SignInLimits = {
  /** Attempts (right or wrong) from one client address per minute. */
  perAddressPerMinute: number;
  /**
   * Wrong passwords for one account within `lockSeconds`; then the account refuses every attempt
   * from browsers it has not signed in from, right password included, until the window passes. A
   * browser with the account's device cookie (lib/auth/device.ts) has a count of its own instead.
   */
  failuresPerAccount: number;
  /** Wrong passwords from one client address per hour, for any accounts. */
  failuresPerAddress: number;
  lockSeconds: number;
  /** A wrong password is answered after this delay, doubled for each earlier failure of the account (capped at 16×). */
  slowdownMs: number;
};

const num = (v: string | undefined, d: number) => (v && Number.isFinite(Number(v)) && Number(v) >= 0 ? Number(v) : d);

export const signInLimitsFromEnv = (env = process.env): SignInLimits => ({
  perAddressPerMinute: num(env.JOBSCOPE_SIGN_IN_PER_MINUTE, 10),
  failuresPerAccount: num(env.JOBSCOPE_SIGN_IN_FAILURES_PER_ACCOUNT, 10),
  failuresPerAddress: num(env.JOBSCOPE_SIGN_IN_FAILURES_PER_ADDRESS, 30),
  lockSeconds: num(env.JOBSCOPE_SIGN_IN_LOCK_SECONDS, 900),
  slowdownMs: num(env.JOBSCOPE_SIGN_IN_SLOWDOWN_MS, 250),
});

export type SignInGuardOptions = {
  db: () => Db;
  anonymous: () => AnonymousAuditor;
  limits: SignInLimits;
  /** The bound on password hashing (lib/auth/password-work.ts): a sign-in it has no room for is refused before any database work. */
  work: PasswordWork;
};

type Who = { id: string; email: string; role?: unknown; tenantId?: unknown };

const at = (path: string) => (ctx: { path?: string }) => ctx.path === path;
const bodyField = (body: unknown, key: string): unknown => (body && typeof body === "object" ? (body as Record<string, unknown>)[key] : undefined);
const tooMany = (seconds: number) =>
  new APIError("TOO_MANY_REQUESTS", { message: `Too many sign-in attempts: try again in ${Math.max(1, Math.ceil(seconds))} s.` });

/**
 * A better-auth plugin whose hooks run for `auth.api.*` calls (the console's sign-in server action)
 * and for HTTP requests alike — better-auth's own rate limiter sees only the HTTP route, which is
 * how wrong passwords through the form went unlimited. It limits sign-in by account
 * and by client address (the address the web server vouches for, lib/http/client-address.ts), slows
 * down repeated failures, and audits sign-in, sign-out, password and display-name changes and session
 * revocation; revoking a session that is not the caller's answers 404. Counters live in the web
 * process's memory, like the API's rate limit (docs/decisions.md): one web process, and a restart
 * is not something an attacker can cause at will.
 */
export function signInGuard(opts: SignInGuardOptions): BetterAuthPlugin {
  const { limits } = opts;
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
  const attempts = new RateLimiterMemory({ keyPrefix: "attempts", points: Math.max(1, limits.perAddressPerMinute), duration: 60 });
  const accountFailures = new RateLimiterMemory({
    keyPrefix: "account",
    points: Math.max(1, limits.failuresPerAccount),
    duration: limits.lockSeconds,
  });
  const deviceFailures = new RateLimiterMemory({ keyPrefix: "device", points: Math.max(1, limits.failuresPerAccount), duration: limits.lockSeconds });
  const addressFailures = new RateLimiterMemory({ keyPrefix: "address", points: Math.max(1, limits.failuresPerAddress), duration: 3600 });

  const audit = async (who: Who, action: AuditAction, outcome: AuditOutcome, reason: string) => {
    const role = (ROLES as readonly unknown[]).includes(who.role) ? (who.role as Role) : null;
    const tenantId = typeof who.tenantId === "string" ? who.tenantId : null;
    await recordAudit(opts.db(), { userId: who.id, actor: who.email, role, tenantId, via: "console", action, outcome, reason }).catch(
      (err: unknown) => console.error(`[jobscope] could not audit ${action}:`, err),
    );
  };
  const auditAnonymous = (action: AuditAction, reason: string, address: string) =>
    opts.anonymous().record({ via: "console", action, outcome: "denied", reason }, address);

  /** Seconds until a limiter lets `key` through again, or 0 if it does now. */
  const blockedFor = async (limiter: RateLimiterMemory, key: string, max: number) => {
    const r = await limiter.get(key);
    return r && r.consumedPoints >= max ? r.msBeforeNext / 1000 : 0;
  };

  const accountKey = (body: unknown) => {
    const email = bodyField(body, "email");
    return typeof email === "string" ? email.trim().toLowerCase().slice(0, 200) : "";
  };

  type HookCtx = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];
  /** The device cookie this request carries, if it is valid for `account`. */
  const knownDevice = async (ctx: HookCtx, account: string): Promise<Device | null> => {
    const cookie = ctx.context.createAuthCookie(DEVICE_COOKIE);
    const value = await ctx.getSignedCookie(cookie.name, ctx.context.secret).catch(() => null);
    return deviceFor(value, account);
  };

  return {
    id: "jobscope-sign-in-guard",
    hooks: {
      before: [
        {
          // Every endpoint: text PostgreSQL cannot store (lib/input.ts) is a 400 naming its field, not a driver error and a 500.
          matcher: () => true,
          handler: createAuthMiddleware(async (ctx) => {
            const bad = findBadText(ctx.body) ?? findBadText(ctx.query);
            if (bad) throw new APIError("BAD_REQUEST", { message: `${describeBadText(bad)}.`, code: "INVALID_TEXT" });
          }),
        },
        {
          matcher: at("/sign-in/email"),
          handler: createAuthMiddleware(async (ctx) => {
            const address = clientAddressOf(ctx.headers);
            const account = accountKey(ctx.body);
            const device = await knownDevice(ctx, account);
            // Tell the password hashing whose sign-in this is (a known device may use the reserve).
            const scope = currentPasswordScope();
            if (scope) scope.knownDevice = device !== null;
            try {
              await attempts.consume(address);
            } catch (e) {
              if (!(e instanceof RateLimiterRes)) throw e;
              await auditAnonymous("auth.sign_in", "refused: too many sign-in attempts from this address", address);
              throw tooMany(e.msBeforeNext / 1000);
            }
            const wait = Math.max(
              device
                ? await blockedFor(deviceFailures, device.id, limits.failuresPerAccount)
                : await blockedFor(accountFailures, account, limits.failuresPerAccount),
              await blockedFor(addressFailures, address, limits.failuresPerAddress),
            );
            if (wait > 0) {
              await auditAnonymous("auth.sign_in", "refused: too many wrong passwords for this account or from this address", address);
              throw tooMany(wait);
            }
            // No room to check another password now: say so at once, before any database work.
            if (opts.work.full(device !== null)) {
              await auditAnonymous("auth.sign_in", "refused: too many sign-ins being checked at once (try again)", address);
              throw busy();
            }
          }),
        },
        {
          matcher: at("/sign-out"),
          handler: createAuthMiddleware(async (ctx) => {
            const session = await getSessionFromCtx(ctx).catch(() => null);
            if (session) await audit(session.user, "auth.sign_out", "applied", `signed out from ${clientAddressOf(ctx.headers)}`);
          }),
        },
        {
          // A changed password ends every other session of the account, whatever the caller asked:
          // whoever knew the old password may be signed in elsewhere (better-auth keeps them by default).
          matcher: at("/change-password"),
          handler: createAuthMiddleware(async (ctx) => ({ context: { body: { ...(ctx.body as object), revokeOtherSessions: true } } })),
        },
        {
          matcher: at("/revoke-session"),
          handler: createAuthMiddleware(async (ctx) => {
            const session = await getSessionFromCtx(ctx).catch(() => null);
            if (!session) return;
            const token = bodyField(ctx.body, "token");
            const target = typeof token === "string" ? await ctx.context.internalAdapter.findSession(token) : null;
            if (target?.session.userId !== session.user.id) {
              // better-auth answers 200 and revokes nothing; say what happened: there is no such session of yours.
              await audit(session.user, "auth.session_revoke", "denied", "not one of the caller's sessions");
              throw new APIError("NOT_FOUND", { message: "No such session." });
            }
            await audit(session.user, "auth.session_revoke", "applied", "revoked one of their sessions");
          }),
        },
      ],
      after: [
        {
          matcher: at("/sign-in/email"),
          handler: createAuthMiddleware(async (ctx) => {
            const address = clientAddressOf(ctx.headers);
            const account = accountKey(ctx.body);
            const returned = ctx.context.returned;
            const device = await knownDevice(ctx, account);
            if (isAPIError(returned)) {
              if (returned.statusCode !== 401) return;
              // A known device's failures are its own: they never lock the account for its owner's other browsers, nor the other way round.
              const failures = device ? await deviceFailures.penalty(device.id) : await accountFailures.penalty(account);
              await addressFailures.penalty(address);
              const known = account ? await ctx.context.internalAdapter.findUserByEmail(account).catch(() => null) : null;
              await auditAnonymous("auth.sign_in", `wrong password for ${known ? `account ${known.user.email}` : "an unknown account"}`, address);
              // Slow down: each failure of the account waits twice as long as the last (250 ms … 4 s by default).
              await sleep(limits.slowdownMs * 2 ** Math.min(4, failures.consumedPoints - 1));
              return;
            }
            const user = ctx.context.newSession?.user;
            if (!user) return;
            // Signing in from a known device leaves the strangers' count standing: it is not theirs to clear.
            if (device) await deviceFailures.delete(device.id);
            else await accountFailures.delete(account);
            const cookie = ctx.context.createAuthCookie(DEVICE_COOKIE, { maxAge: DEVICE_MAX_AGE_SECONDS });
            await ctx.setSignedCookie(cookie.name, deviceValue(user.email), ctx.context.secret, cookie.attributes);
            await audit(user, "auth.sign_in", "applied", `signed in from ${address}${device ? " (a known device)" : ""}`);
          }),
        },
        {
          matcher: at("/change-password"),
          handler: createAuthMiddleware(async (ctx) => {
            const returned = ctx.context.returned;
            const user = bodyField(returned, "user") as Who | undefined;
            if (user && typeof user.id === "string") return audit(user, "auth.password_change", "applied", "changed their password");
            const session = await getSessionFromCtx(ctx).catch(() => null);
            if (session && isAPIError(returned)) await audit(session.user, "auth.password_change", "denied", "the current password did not match");
          }),
        },
        {
          matcher: at("/update-user"),
          handler: createAuthMiddleware(async (ctx) => {
            if (isAPIError(ctx.context.returned) || bodyField(ctx.body, "name") === undefined) return;
            const session = await getSessionFromCtx(ctx).catch(() => null);
            if (session) await audit(session.user, "auth.name_change", "applied", "changed their display name");
          }),
        },
      ],
    },
  };
}

import { AsyncLocalStorage } from "node:async_hooks";
import { APIError } from "better-auth/api";
import { hashPassword, verifyPassword } from "better-auth/crypto";
import pLimit from "p-limit";

/**
 * Password hashing is the one expensive thing an anonymous request can make the web process do
 * (scrypt: tens of milliseconds of a core each, and 16 MB). About 10 wrong sign-ins a second from
 * as many addresses saturated both cores and slowed every signed-in page from 0.02–0.24 s to 8–32 s.
 * So the work is bounded: at most `concurrency` hashes at once, at most `queue` more waiting, and
 * any other asks to "try again" at once (503 with Retry-After) instead of waiting behind them.
 * A sign-in from a browser the account signed in from before (a device cookie, lib/auth/device.ts)
 * may also use `reserve` more places in the queue: a flood of strangers cannot take them.
 */
export type PasswordWorkLimits = { concurrency: number; queue: number; reserve: number };

const num = (v: string | undefined, d: number, min: number) => (v && Number.isInteger(Number(v)) && Number(v) >= min ? Number(v) : d);

export const passwordWorkLimitsFromEnv = (env = process.env): PasswordWorkLimits => ({
  concurrency: num(env.JOBSCOPE_PASSWORD_HASH_CONCURRENCY, 1, 1),
  queue: num(env.JOBSCOPE_PASSWORD_HASH_QUEUE, 4, 0),
  reserve: num(env.JOBSCOPE_PASSWORD_HASH_RESERVE, 8, 0),
});

/** Seconds a refused sign-in is told to wait. */
export const BUSY_RETRY_SECONDS = 2;

export const busy = () =>
  new APIError(
    "SERVICE_UNAVAILABLE",
    { message: `The server is checking many sign-ins right now: try again in ${BUSY_RETRY_SECONDS} s.`, code: "BUSY" },
    { "Retry-After": String(BUSY_RETRY_SECONDS) },
  );

/**
 * What the request being served says about itself: whether it comes from a known device. The
 * entry points (the /api/auth route and the sign-in action) open a scope; the sign-in guard fills it
 * in once it has read the body; the hash functions read it. Without a scope (scripts, tests calling
 * better-auth directly) a request is a stranger's.
 */
export type PasswordScope = { knownDevice: boolean };
// One per process, like the work itself: Next.js may bundle this module into more than one chunk
// (the sign-in action's, the auth route's), and a scope opened by one copy must be read by the other.
const scopes = globalThis as unknown as { __jobscopePasswordScope?: AsyncLocalStorage<PasswordScope> };
const scope = (scopes.__jobscopePasswordScope ??= new AsyncLocalStorage<PasswordScope>());
export const withPasswordScope = <T>(fn: () => T): T => scope.run({ knownDevice: false }, fn);
export const currentPasswordScope = () => scope.getStore();

export type PasswordWork = ReturnType<typeof createPasswordWork>;

export function createPasswordWork(limits: PasswordWorkLimits) {
  const limit = pLimit(limits.concurrency);
  /** Hashes asked for and not finished: running and waiting. */
  const demand = () => limit.activeCount + limit.pendingCount;
  const room = (knownDevice: boolean) => limits.concurrency + limits.queue + (knownDevice ? limits.reserve : 0);
  const run = <T>(fn: () => Promise<T>): Promise<T> => {
    if (demand() >= room(currentPasswordScope()?.knownDevice ?? false)) return Promise.reject(busy());
    return limit(fn);
  };
  return {
    limits,
    /** Would a hash asked for now be refused? (The sign-in guard asks before any database work.) */
    full: (knownDevice: boolean) => demand() >= room(knownDevice),
    demand,
    hash: (password: string) => run(() => hashPassword(password)),
    verify: (data: { hash: string; password: string }) => run(() => verifyPassword(data)),
  };
}

const g = globalThis as unknown as { __jobscopePasswordWork?: PasswordWork };

/** The process's bound on password hashing: every sign-in and password change of the web app goes through it. */
export function passwordWork(): PasswordWork {
  g.__jobscopePasswordWork ??= createPasswordWork(passwordWorkLimitsFromEnv());
  return g.__jobscopePasswordWork;
}

/**
 * For the web server (lib/http/front.ts): seconds to tell a sign-in request to wait, when hashing
 * has no room for a stranger's sign-in, or null. Only better-auth's JSON endpoints
 * (`/api/auth/sign-in/*`) are answered there: the sign-in page's server action needs an answer
 * Next.js's client can read, so the sign-in guard refuses it (before any database work). A request
 * carrying a device cookie goes on to the guard, which checks the cookie's signature and may give
 * it the reserve.
 */
export function signInBusy(
  req: { method?: string; url?: string; headers: Record<string, string | string[] | undefined> },
  work = passwordWork(),
): number | null {
  if (req.method !== "POST" || !(req.url ?? "/").startsWith("/api/auth/sign-in/")) return null;
  const cookie = req.headers.cookie;
  if (typeof cookie === "string" && /(^|;\s*)(__Secure-)?better-auth\.device=/.test(cookie)) return null;
  return work.full(false) ? BUSY_RETRY_SECONDS : null;
}

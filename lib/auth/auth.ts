import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { nextCookies } from "better-auth/next-js";
import { anonymousAudit, type AnonymousAuditor } from "../audit/anonymous";
import { connect, databaseUrl, pool, type Db } from "../db/client";
import { accounts, sessions, users, verifications } from "../db/schema-identity";
import { CLIENT_ADDRESS_HEADER } from "../http/client-address";
import { refuseOffboarded } from "./offboarding";
import { passwordWork, type PasswordWork } from "./password-work";
import { signInGuard, signInLimitsFromEnv, type SignInLimits } from "./sign-in-guard";

export type AuthOptions = {
  url: string;
  secret: string | undefined;
  /** Where audit rows are written (the process's pool in the web app). */
  auditDb: () => Db;
  anonymous: () => AnonymousAuditor;
  limits: SignInLimits;
  /** The bound on password hashing (default: the process's). */
  work?: PasswordWork;
};

/** The better-auth instance for `opts` (tests build their own against their database). */
export function createAuth(opts: AuthOptions) {
  // Its own small pool, so that a flood of sign-ins cannot take the console's connections.
  const db = connect(opts.url, { max: 4, appName: "jobscope-auth" });
  const hosts = (process.env.JOBSCOPE_ALLOWED_HOSTS ?? "localhost:*,127.0.0.1:*").split(",").map((h) => h.trim());
  const work = opts.work ?? passwordWork();
  return betterAuth({
    appName: "Jobscope",
    database: drizzleAdapter(db, { provider: "pg", schema: { user: users, session: sessions, account: accounts, verification: verifications } }),
    secret: opts.secret,
    baseURL: process.env.BETTER_AUTH_URL ?? { allowedHosts: hosts },
    // Hashing goes through one bounded queue (lib/auth/password-work.ts): a flood of sign-ins is told to try again, not hashed.
    emailAndPassword: { enabled: true, autoSignIn: false, minPasswordLength: 10, password: { hash: work.hash, verify: work.verify } },
    // Accounts are created by admins (and the demo seed) on the server, never by strangers.
    disabledPaths: ["/sign-up/email"],
    user: {
      additionalFields: {
        role: { type: "string", required: false, defaultValue: "tenant", input: false },
        tenantId: { type: "string", required: false, input: false },
        tenantOwner: { type: "boolean", required: false, defaultValue: false, input: false },
        deactivatedAt: { type: "date", required: false, input: false },
      },
    },
    // Offboarding (lib/auth/offboarding.ts): a deactivated user, or a member of a suspended tenant,
    // gets no new session on any path; their existing sessions were deleted when it happened.
    databaseHooks: { session: { create: { before: (session) => refuseOffboarded(opts.auditDb(), session.userId) } } },
    session: { expiresIn: 60 * 60 * 12, updateAge: 60 * 60, cookieCache: { enabled: false } },
    // The client's address is the one the web server vouches for (scripts/web.ts): a forwarding
    // header counts only from a configured proxy, so a spoofed X-Forwarded-For resets nothing.
    advanced: { ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] } },
    // better-auth's own limit covers its HTTP routes; the sign-in guard covers every sign-in path.
    rateLimit: { enabled: true, window: 60, max: 100, customRules: { "/sign-in/email": { window: 60, max: opts.limits.perAddressPerMinute } } },
    telemetry: { enabled: false },
    plugins: [signInGuard({ db: opts.auditDb, anonymous: opts.anonymous, limits: opts.limits, work }), nextCookies()],
  });
}

export type Auth = ReturnType<typeof createAuth>;
const g = globalThis as unknown as { __jobscopeAuth?: Auth };

/** The better-auth instance, created on first use (not at build time). */
export function auth(): Auth {
  g.__jobscopeAuth ??= createAuth({
    url: databaseUrl(),
    secret: process.env.BETTER_AUTH_SECRET,
    auditDb: pool,
    anonymous: anonymousAudit,
    limits: signInLimitsFromEnv(),
  });
  return g.__jobscopeAuth;
}

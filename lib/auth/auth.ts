import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { nextCookies } from "better-auth/next-js";
import { drizzle } from "drizzle-orm/postgres-js";
import { connect, databaseUrl } from "../db/client";
import { accounts, sessions, users, verifications } from "../db/schema-identity";

function createAuth() {
  // Its own small pool: drizzle's postgres-js driver changes the serializers of the pool it wraps.
  const db = drizzle(connect(databaseUrl(), { max: 4, appName: "jobscope-auth" }));
  const hosts = (process.env.JOBSCOPE_ALLOWED_HOSTS ?? "localhost:*,127.0.0.1:*").split(",").map((h) => h.trim());
  return betterAuth({
    appName: "Jobscope",
    database: drizzleAdapter(db, { provider: "pg", schema: { user: users, session: sessions, account: accounts, verification: verifications } }),
    secret: process.env.BETTER_AUTH_SECRET,
    baseURL: process.env.BETTER_AUTH_URL ?? { allowedHosts: hosts },
    emailAndPassword: { enabled: true, autoSignIn: false, minPasswordLength: 10 },
    // Accounts are created by admins (and the demo seed) on the server, never by strangers.
    disabledPaths: ["/sign-up/email"],
    user: {
      additionalFields: {
        role: { type: "string", required: false, defaultValue: "tenant", input: false },
        tenantId: { type: "string", required: false, input: false },
        tenantOwner: { type: "boolean", required: false, defaultValue: false, input: false },
      },
    },
    session: { expiresIn: 60 * 60 * 12, updateAge: 60 * 60, cookieCache: { enabled: false } },
    rateLimit: { enabled: true, window: 60, max: 100, customRules: { "/sign-in/email": { window: 60, max: Number(process.env.JOBSCOPE_SIGN_IN_PER_MINUTE ?? 10) } } },
    telemetry: { enabled: false },
    plugins: [nextCookies()],
  });
}

export type Auth = ReturnType<typeof createAuth>;
const g = globalThis as unknown as { __jobscopeAuth?: Auth };

/** The better-auth instance, created on first use (not at build time). */
export function auth(): Auth {
  g.__jobscopeAuth ??= createAuth();
  return g.__jobscopeAuth;
}

import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { AUDIT_ACTIONS } from "../audit/actions";
import { ROLES, type Role } from "../auth/permissions";
import { checkKnown, fkey, keyDesc, serialId, tenantId, timestamps, tz } from "./columns";
import { tenants } from "./schema";

/**
 * better-auth's tables (user, session, account, verification), with two
 * Jobscope fields on the user: the role (lib/auth/permissions.ts) and, for
 * tenant members, their tenant. Column keys are the names better-auth uses.
 */
export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    email: text("email").notNull().unique("users_email_key"),
    emailVerified: boolean("email_verified").notNull().default(false),
    image: text("image"),
    role: text("role").$type<Role>().notNull().default("tenant"),
    tenantId: text("tenant_id"),
    /** A tenant member who may manage the tenant's API keys. */
    tenantOwner: boolean("tenant_owner").notNull().default(false),
    /** Set while the user is deactivated: no sessions, no sign-in, their API keys revoked (drizzle/0014). */
    deactivatedAt: tz("deactivated_at"),
    ...timestamps(),
  },
  (t) => [
    fkey("users", t.tenantId, tenants.id),
    checkKnown("users", t.role, ROLES),
    check("users_tenant_iff_member", sql`(${t.role} = 'tenant') = (${t.tenantId} IS NOT NULL)`),
  ],
);

export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    expiresAt: tz("expires_at").notNull(),
    token: text("token").notNull().unique("sessions_token_key"),
    ...timestamps(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    userId: text("user_id").notNull(),
  },
  (t) => [fkey("sessions", t.userId, users.id).onDelete("cascade"), index("sessions_user_idx").on(t.userId)],
);

export const accounts = pgTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: text("user_id").notNull(),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: tz("access_token_expires_at"),
    refreshTokenExpiresAt: tz("refresh_token_expires_at"),
    scope: text("scope"),
    password: text("password"),
    ...timestamps(),
  },
  (t) => [fkey("accounts", t.userId, users.id).onDelete("cascade"), index("accounts_user_idx").on(t.userId)],
);

export const verifications = pgTable("verifications", {
  id: text("id").primaryKey(),
  identifier: text("identifier").notNull(),
  value: text("value").notNull(),
  expiresAt: tz("expires_at").notNull(),
  ...timestamps(),
});

export const AUDIT_OUTCOMES = ["applied", "refused", "denied", "invalid", "error"] as const;

/**
 * Every console and API action: who (user or API key, role, tenant), what,
 * on which jobs, and how it ended. Append-only for the application's role.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: serialId(),
    at: tz("at").notNull().defaultNow(),
    userId: text("user_id"),
    actor: text("actor").notNull(),
    role: text("role"),
    tenantId: text("tenant_id"),
    via: text("via").notNull(),
    action: text("action").notNull(),
    jobIds: uuid("job_ids")
      .array()
      .notNull()
      .default(sql`'{}'::uuid[]`),
    outcome: text("outcome").$type<(typeof AUDIT_OUTCOMES)[number]>().notNull(),
    reason: text("reason"),
    /** How many identical denials this row stands for (drizzle/0013: repeated attempts aggregate into one row). */
    repeatCount: integer("repeat_count").notNull().default(1),
    /** The bulk operation (or replay) this entry stands for, its items reached from it (0024). */
    operationId: uuid("operation_id"),
  },
  (t) => [
    checkKnown("audit_log", t.outcome, AUDIT_OUTCOMES),
    checkKnown("audit_log", t.via, ["console", "api"]),
    // Added NOT VALID (drizzle/0013, renewed in 0018 and 0020): the rows before it were not checked.
    checkKnown("audit_log", t.action, AUDIT_ACTIONS),
    check("audit_log_repeat_count_positive", sql`${t.repeatCount} >= 1`),
    index("audit_log_at_idx").on(t.at),
    index("audit_log_actor_idx").on(t.actor, keyDesc(t.id)),
    index("audit_log_action_idx").on(t.action, keyDesc(t.id)),
  ],
);

/** Per-tenant API keys: the secret is shown once; only its SHA-256 is kept. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: tenantId(),
    name: text("name").notNull(),
    /** The first characters of the key, to recognise it in lists. */
    prefix: text("prefix").notNull(),
    hash: text("hash").notNull().unique("api_keys_hash_key"),
    createdBy: text("created_by").notNull(),
    createdAt: tz("created_at").notNull().defaultNow(),
    lastUsedAt: tz("last_used_at"),
    revokedAt: tz("revoked_at"),
  },
  (t) => [fkey("api_keys", t.tenantId, tenants.id), index("api_keys_tenant_idx").on(t.tenantId, keyDesc(t.createdAt))],
);

import { APIError } from "better-auth/api";
import { hashPassword } from "better-auth/crypto";
import { z } from "zod";
import type { Db, Tx } from "../db/client";
import { AppError } from "../result";
import { TenantId } from "./tenants";
import { lastAdminRefusal } from "./users";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * Offboarding: deactivate a user, suspend a tenant, reset a password. Each takes the caller's
 * transaction (the admin action commits its audit row with it). Nothing is deleted but sessions:
 * a deactivated user and a suspended tenant can be brought back, and their history stays.
 */

export const UserRef = z.strictObject({ userId: z.string().min(1).max(100) });
export const TenantRef = z.strictObject({ id: TenantId });
export const PasswordReset = z.strictObject({
  userId: z.string().min(1).max(100),
  password: z.string().min(10, "at least 10 characters").max(200),
});

export type Offboarded = { email: string; sessionsEnded: number; keysRevoked: number };

/**
 * Deactivate a user: they cannot sign in, their sessions end now, and the API keys they created
 * are revoked (a key outlives nobody's access). The last active admin cannot be deactivated
 * (the admins' rows are locked first, as for a role change), nor can an admin deactivate themself (another
 * admin must, so nobody is locked out by mistake): both are refusals (AppError). Null when there is no such user.
 */
export async function deactivateUser(tx: Tx, userId: string, by: { userId: string }): Promise<Offboarded | null> {
  if (userId === by.userId) throw new AppError("refused", "You cannot deactivate yourself: ask another admin.");
  const admins = await execute<{ id: string }>(tx, sql`SELECT id FROM users WHERE role = 'admin' AND deactivated_at IS NULL ORDER BY id FOR UPDATE`);
  if (admins.length === 1 && admins[0]!.id === userId) throw lastAdminRefusal();
  const [user] = await execute<{ email: string }>(
    tx,
    sql`
    UPDATE users SET deactivated_at = coalesce(deactivated_at, now()), updated_at = now() WHERE id = ${userId} RETURNING email`,
  );
  if (!user) return null;
  const sessions = await execute(tx, sql`DELETE FROM sessions WHERE user_id = ${userId}`);
  const keys = await execute(tx, sql`UPDATE api_keys SET revoked_at = now() WHERE created_by = ${user.email} AND revoked_at IS NULL`);
  return { email: user.email, sessionsEnded: sessions.count, keysRevoked: keys.count };
}

/** Let a deactivated user sign in again (revoked keys stay revoked). Null when there is no such user. */
export async function reactivateUser(tx: Tx, userId: string): Promise<{ email: string } | null> {
  const [user] = await execute<{ email: string }>(
    tx,
    sql`UPDATE users SET deactivated_at = NULL, updated_at = now() WHERE id = ${userId} RETURNING email`,
  );
  return user ?? null;
}

/**
 * Suspend a tenant: its members' sessions end and they cannot sign in; its API keys are refused
 * while it is suspended (not revoked: resuming brings them back). Its jobs stay as they are,
 * readable to staff. Null when there is no such tenant.
 */
export async function suspendTenant(tx: Tx, tenantId: string): Promise<{ sessionsEnded: number } | null> {
  const [t] = await execute(tx, sql`UPDATE tenants SET suspended_at = coalesce(suspended_at, now()) WHERE id = ${tenantId} RETURNING id`);
  if (!t) return null;
  const sessions = await execute(tx, sql`DELETE FROM sessions WHERE user_id IN (SELECT id FROM users WHERE tenant_id = ${tenantId})`);
  return { sessionsEnded: sessions.count };
}

export async function resumeTenant(tx: Tx, tenantId: string): Promise<boolean> {
  const r = await execute(tx, sql`UPDATE tenants SET suspended_at = NULL WHERE id = ${tenantId}`);
  return r.count > 0;
}

/** Set a new password (hashed by better-auth's hasher) and end the user's sessions. Null when there is no such user. */
export async function resetPassword(tx: Tx, userId: string, password: string): Promise<{ email: string } | null> {
  const hash = await hashPassword(password);
  const [user] = await execute<{ email: string }>(tx, sql`SELECT email FROM users WHERE id = ${userId}`);
  if (!user) return null;
  const r = await execute(
    tx,
    sql`UPDATE accounts SET password = ${hash}, updated_at = now() WHERE user_id = ${userId} AND provider_id = 'credential'`,
  );
  if (r.count === 0) return null;
  await execute(tx, sql`DELETE FROM sessions WHERE user_id = ${userId}`);
  return user;
}

/**
 * better-auth's session.create.before hook: no session for a deactivated user or a member of a
 * suspended tenant. It runs after the password was verified, so it may say why.
 */
export async function refuseOffboarded(db: Db, userId: string): Promise<void> {
  const [u] = await execute<{ deactivated: boolean; suspended: boolean }>(
    db,
    sql`
    SELECT u.deactivated_at IS NOT NULL AS deactivated, coalesce(t.suspended_at IS NOT NULL, false) AS suspended
      FROM users u LEFT JOIN tenants t ON t.id = u.tenant_id WHERE u.id = ${userId}`,
  );
  if (u?.deactivated) throw new APIError("FORBIDDEN", { message: "This account is deactivated: ask an administrator." });
  if (u?.suspended) throw new APIError("FORBIDDEN", { message: "Your organisation's access is suspended: ask an administrator." });
}

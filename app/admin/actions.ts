"use server";

import type { z } from "zod";
import { ROLE_LABELS } from "@/lib/auth/permissions";
import {
  deactivateUser,
  PasswordReset,
  reactivateUser,
  resetPassword,
  resumeTenant,
  suspendTenant,
  TenantRef,
  UserRef,
} from "@/lib/auth/offboarding";
import { createTenant, NewTenant, renameTenant, TenantRename } from "@/lib/auth/tenants";
import { createUser, NewUser, RoleChange, setUserRole } from "@/lib/auth/users";
import { consoleAction, type Done } from "@/lib/frame/action";
import { AppError, appErrorOf, describeInvalid } from "@/lib/result";
import { sql } from "drizzle-orm";
import { execute } from "@/lib/db/drizzle";

// Every action here is a public POST endpoint, built with the one frame (lib/frame/action.ts): it
// checks the caller is an admin, parses its input with a strict schema (unknown fields are
// refused), and leaves one audit row for every outcome. A change and its audit row commit together;
// a staff transaction is the only one that may change who a user is (drizzle/0015).

const FIELD_LABELS: Record<string, string> = {
  email: "Email",
  name: "Name",
  password: "Password",
  role: "Role",
  tenantId: "Tenant",
  tenantOwner: "Tenant owner",
  userId: "User",
  id: "Tenant id",
};

/** Zod's issues in the form's words (lib/result.ts, describeInvalid: never the submitted values, a password among them). */
const describeIssues = (error: z.ZodError) =>
  `Nothing was saved. ${describeInvalid(error, { label: (path) => FIELD_LABELS[path.split(".")[0]!] ?? path, most: 4 })}.`;

/** What every admin action shares: the permission, and bad input in the form's words. */
const ADMIN = { permission: "admin:manage", invalid: describeIssues } as const;

const applied = (message: string, reason = message): Done<null> => ({ ok: true, data: null, message, reason });
const invalid = (message: string) => new AppError("invalid_input", message);
const noUser = () => invalid("Nothing was saved. There is no such user (reload the page).");
const noTenant = (id: string) => invalid(`Nothing was saved. There is no tenant "${id}".`);
const pgCode = (err: unknown) => (err && typeof err === "object" && "code" in err ? String(err.code) : null);
/** A foreign key the database refused: the tenant named does not exist. */
const unknownTenant = (err: unknown, tenantId: string | null | undefined) => (pgCode(err) === "23503" ? noTenant(tenantId ?? "") : null);
/** A rule of the lib said no (the last admin, one's own account): its words after `prefix`, the audit log's by `reason`. */
const refusedAs = (err: unknown, prefix: string, reason = (message: string) => message) => {
  const refused = appErrorOf(err, "refused");
  return refused && new AppError("refused", `${prefix}: ${refused.userMessage}`, { reason: reason(refused.userMessage) });
};

/** What the lib call found and changed; `missing` is thrown when there was no such row. */
async function found<T>(changed: Promise<T | null | false>, missing: () => AppError): Promise<T> {
  const row = await changed;
  if (!row) throw missing();
  return row;
}

/** A lib call whose refusals are the person's to fix: `fix` says them in the form's words (null: thrown on as they are). */
async function saving<T>(call: Promise<T>, fix: (err: unknown) => AppError | null): Promise<T> {
  try {
    return await call;
  } catch (err) {
    throw fix(err) ?? err;
  }
}

function describeMembership(role: string, tenantId: string | null, owner: boolean) {
  const label = ROLE_LABELS[role as keyof typeof ROLE_LABELS] ?? role;
  return tenantId ? `${label} of ${tenantId}${owner ? " (owner)" : ""}` : label;
}

export const createUserAction = consoleAction({
  ...ADMIN,
  audit: "admin.user.create",
  input: NewUser,
  change: async ({ tx, input }) => {
    // The transaction is aborted either way; these two are the person's to fix.
    const u = await saving(createUser(tx, input), (err) =>
      pgCode(err) === "23505"
        ? invalid(`Nothing was saved. A user with the email ${input.email} already exists.`)
        : unknownTenant(err, input.tenantId),
    );
    return applied(`Created ${u.email}: ${describeMembership(u.role, u.tenantId, u.tenantOwner)}.`);
  },
});

export const setUserRoleAction = consoleAction({
  ...ADMIN,
  audit: "admin.user.role",
  input: RoleChange,
  change: async ({ tx, input, viewer }) => {
    const [before] = await execute<{ email: string; role: string; tenantId: string | null; tenantOwner: boolean }>(
      tx,
      sql`
      SELECT email, role, tenant_id, tenant_owner FROM users WHERE id = ${input.userId}`,
    );
    if (!before) throw noUser();
    const u = await saving(
      setUserRole(tx, input),
      (err) => unknownTenant(err, input.tenantId) ?? refusedAs(err, "Not changed", (message) => `${before.email}: ${message}`),
    );
    if (!u) throw noUser();
    const self = u.id === viewer.userId;
    return applied(
      `${u.email}: ${describeMembership(before.role, before.tenantId, before.tenantOwner)} → ${describeMembership(u.role, u.tenantId, u.tenantOwner)}; ` +
        (self ? "your own sessions ended: sign in again." : "their sessions ended."),
    );
  },
});

export const createTenantAction = consoleAction({
  ...ADMIN,
  audit: "admin.tenant.create",
  input: NewTenant,
  change: async ({ tx, input }) => {
    const t = await saving(createTenant(tx, input), (err) => {
      const taken = appErrorOf(err, "invalid_input");
      return taken && taken.rephrase(`Nothing was saved. ${taken.userMessage}`);
    });
    return applied(`Created tenant ${t.id} (“${t.name}”).`);
  },
});

export const renameTenantAction = consoleAction({
  ...ADMIN,
  audit: "admin.tenant.rename",
  input: TenantRename,
  change: async ({ tx, input }) => {
    const [before] = await execute<{ name: string }>(tx, sql`SELECT name FROM tenants WHERE id = ${input.id}`);
    const t = before ? await renameTenant(tx, input) : null;
    if (!before || !t) throw noTenant(input.id);
    return applied(`Renamed tenant ${t.id}: “${before.name}” → “${t.name}”.`);
  },
});

// Offboarding: deactivate and reactivate a user, suspend and resume a tenant, reset a password.

export const deactivateUserAction = consoleAction({
  ...ADMIN,
  audit: "admin.user.deactivate",
  input: UserRef,
  change: async ({ tx, input, viewer }) => {
    const r = await saving(deactivateUser(tx, input.userId, viewer), (err) => refusedAs(err, "Not deactivated"));
    if (!r) throw noUser();
    return applied(
      `Deactivated ${r.email}: ${r.sessionsEnded} session(s) ended, ${r.keysRevoked} API key(s) they created revoked; they cannot sign in.`,
    );
  },
});

export const reactivateUserAction = consoleAction({
  ...ADMIN,
  audit: "admin.user.reactivate",
  input: UserRef,
  change: async ({ tx, input }) => {
    const r = await found(reactivateUser(tx, input.userId), noUser);
    return applied(`Reactivated ${r.email}: they can sign in again (API keys revoked at deactivation stay revoked).`);
  },
});

export const resetPasswordAction = consoleAction({
  ...ADMIN,
  audit: "admin.user.password_reset",
  input: PasswordReset,
  change: async ({ tx, input }) => {
    const r = await found(resetPassword(tx, input.userId, input.password), noUser);
    // The password itself is never in the log or the answer.
    return applied(
      `Set a new password for ${r.email}; their sessions ended. Give it to them over a channel you trust.`,
      `set a new password for ${r.email}; their sessions ended`,
    );
  },
});

export const suspendTenantAction = consoleAction({
  ...ADMIN,
  audit: "admin.tenant.suspend",
  input: TenantRef,
  change: async ({ tx, input }) => {
    const r = await found(suspendTenant(tx, input.id), () => noTenant(input.id));
    return applied(
      `Suspended tenant ${input.id}: ${r.sessionsEnded} member session(s) ended; its members cannot sign in and its API keys are refused. Its jobs stay readable to staff.`,
    );
  },
});

export const resumeTenantAction = consoleAction({
  ...ADMIN,
  audit: "admin.tenant.resume",
  input: TenantRef,
  change: async ({ tx, input }) => {
    await found(resumeTenant(tx, input.id), () => noTenant(input.id));
    return applied(`Resumed tenant ${input.id}: its members can sign in and its API keys work again.`);
  },
});

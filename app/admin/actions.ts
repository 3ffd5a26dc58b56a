"use server";

import type { z } from "zod";
import type { AuditAction } from "@/lib/audit/actions";
import { recordAudit, type AuditOutcome } from "@/lib/audit/audit";
import { auditDenied, auditRefusedRequest, principalOf } from "@/lib/audit/console";
import { ROLE_LABELS } from "@/lib/auth/permissions";
import {
  deactivateUser,
  PasswordReset,
  reactivateUser,
  resetPassword,
  resumeTenant,
  SelfDeactivationError,
  suspendTenant,
  TenantRef,
  UserRef,
} from "@/lib/auth/offboarding";
import { createTenant, NewTenant, renameTenant, TenantExists, TenantRename } from "@/lib/auth/tenants";
import { createUser, LastAdminError, NewUser, RoleChange, setUserRole } from "@/lib/auth/users";
import { authorize, type Viewer } from "@/lib/auth/viewer";
import { pool } from "@/lib/db/client";
import { withScope } from "@/lib/db/scope";
import type { Tx } from "@/lib/jobs/write-path";
import type { AdminResult } from "./result";

// Every action here is a public POST endpoint: each one checks the caller's permission itself,
// parses its input with a strict schema (unknown fields are refused), and leaves one audit row
// for every outcome. A change and its audit row commit together.

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

const fail = (code: "forbidden" | "invalid_input" | "refused" | "internal", message: string): AdminResult => ({ ok: false, error: { code, message } });

/** Zod's issues in words a person can act on; never echoes the submitted values (a password among them). */
function describeIssues(error: z.ZodError): string {
  const parts = error.issues.slice(0, 4).map((i) => {
    const field = i.path.length ? (FIELD_LABELS[String(i.path[0])] ?? String(i.path[0])) : null;
    if (i.code === "unrecognized_keys") return `unexpected field${i.keys.length > 1 ? "s" : ""} ${i.keys.map((k) => `"${k.slice(0, 40)}"`).join(", ")}`;
    return field ? `${field}: ${i.message}` : i.message;
  });
  return `Nothing was saved. ${parts.join("; ")}.`;
}

type Outcome = { outcome: AuditOutcome; result: AdminResult; reason: string };

/**
 * The frame of every admin action: authorize, parse, run `apply` in one transaction with its
 * audit row, and audit refusals and failures (which write nothing else).
 */
async function adminAction<S extends z.ZodType>(
  action: AuditAction,
  schema: S,
  raw: unknown,
  apply: (tx: Tx, input: z.output<S>, viewer: Viewer) => Promise<Outcome>,
  explain: (err: unknown, input: z.output<S>) => Outcome | null,
): Promise<AdminResult> {
  let viewer: Viewer | null = null;
  try {
    const auth = await authorize("admin:manage");
    if (!auth.ok) {
      await auditDenied(auth, action);
      return fail("forbidden", auth.message);
    }
    viewer = auth.viewer;
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const message = describeIssues(parsed.error);
      await auditRefusedRequest(viewer, action, "invalid", message);
      return fail("invalid_input", message);
    }
    const who = viewer;
    try {
      // A staff transaction: only it may change who a user is (role, tenant, deactivation; drizzle/0015).
      return (await withScope(pool(), { all: true }, async (tx) => {
        const o = await apply(tx, parsed.data, who);
        await recordAudit(tx, { ...principalOf(who), via: "console", action, outcome: o.outcome, reason: o.reason });
        if (!o.result.ok) throw new Rollback(o);
        return o.result;
      })) as AdminResult;
    } catch (err) {
      const o = err instanceof Rollback ? err.outcome : explain(err, parsed.data);
      if (!o) throw err;
      // The transaction rolled back: the refusal is recorded on its own.
      await recordAudit(pool(), { ...principalOf(who), via: "console", action, outcome: o.outcome, reason: o.reason });
      return o.result;
    }
  } catch (err) {
    // The cause stays in the server log: a database error can name tables, hosts or credentials.
    console.error(`${action} failed:`, err);
    try {
      await recordAudit(pool(), { ...(viewer ? principalOf(viewer) : { userId: null, actor: "anonymous", role: null, tenantId: null }), via: "console", action, outcome: "error", reason: "internal error (see the server log)" });
    } catch (auditErr) {
      console.error(`[jobscope] could not audit the failed ${action}:`, auditErr);
    }
    return fail("internal", "The server could not complete this. Details are in the server log; nothing was changed.");
  }
}

/** Thrown inside the transaction to undo it when the action decides not to apply after all. */
class Rollback extends Error {
  constructor(readonly outcome: Outcome) {
    super(outcome.reason);
  }
}

const pgCode = (err: unknown) => (err && typeof err === "object" && "code" in err ? String(err.code) : null);
const invalid = (message: string): Outcome => ({ outcome: "invalid", result: fail("invalid_input", message), reason: message });

function describeMembership(role: string, tenantId: string | null, owner: boolean) {
  const label = ROLE_LABELS[role as keyof typeof ROLE_LABELS] ?? role;
  return tenantId ? `${label} of ${tenantId}${owner ? " (owner)" : ""}` : label;
}

export async function createUserAction(raw: unknown): Promise<AdminResult> {
  return adminAction(
    "admin.user.create",
    NewUser,
    raw,
    async (tx, input) => {
      const u = await createUser(tx, input);
      const message = `Created ${u.email}: ${describeMembership(u.role, u.tenantId, u.tenantOwner)}.`;
      return { outcome: "applied", result: { ok: true, message }, reason: message };
    },
    (err, input) => {
      if (pgCode(err) === "23505") return invalid(`Nothing was saved. A user with the email ${input.email} already exists.`);
      if (pgCode(err) === "23503") return invalid(`Nothing was saved. There is no tenant "${input.tenantId}".`);
      return null;
    },
  );
}

export async function setUserRoleAction(raw: unknown): Promise<AdminResult> {
  return adminAction(
    "admin.user.role",
    RoleChange,
    raw,
    async (tx, input, viewer) => {
      const [before] = await tx<{ email: string; role: string; tenantId: string | null; tenantOwner: boolean }[]>`
        SELECT email, role, tenant_id, tenant_owner FROM users WHERE id = ${input.userId}`;
      if (!before) return invalid("Nothing was saved. There is no such user (reload the page).");
      let u;
      try {
        u = await setUserRole(tx, input);
      } catch (err) {
        if (!(err instanceof LastAdminError)) throw err;
        return { outcome: "refused", result: fail("refused", `Not changed: ${err.message}`), reason: `${before.email}: ${err.message}` };
      }
      if (!u) return invalid("Nothing was saved. There is no such user (reload the page).");
      const self = u.id === viewer.userId;
      const message =
        `${u.email}: ${describeMembership(before.role, before.tenantId, before.tenantOwner)} → ${describeMembership(u.role, u.tenantId, u.tenantOwner)}; ` +
        (self ? "your own sessions ended: sign in again." : "their sessions ended.");
      return { outcome: "applied", result: { ok: true, message }, reason: message };
    },
    (err, input) => {
      if (pgCode(err) === "23503") return invalid(`Nothing was saved. There is no tenant "${input.tenantId}".`);
      return null;
    },
  );
}

export async function createTenantAction(raw: unknown): Promise<AdminResult> {
  return adminAction(
    "admin.tenant.create",
    NewTenant,
    raw,
    async (tx, input) => {
      const t = await createTenant(tx, input);
      const message = `Created tenant ${t.id} (“${t.name}”).`;
      return { outcome: "applied", result: { ok: true, message }, reason: message };
    },
    (err) => (err instanceof TenantExists ? invalid(`Nothing was saved. ${err.message}`) : null),
  );
}

export async function renameTenantAction(raw: unknown): Promise<AdminResult> {
  return adminAction(
    "admin.tenant.rename",
    TenantRename,
    raw,
    async (tx, input) => {
      const [before] = await tx<{ name: string }[]>`SELECT name FROM tenants WHERE id = ${input.id}`;
      const t = before ? await renameTenant(tx, input) : null;
      if (!before || !t) return invalid(`Nothing was saved. There is no tenant "${input.id}".`);
      const message = `Renamed tenant ${t.id}: “${before.name}” → “${t.name}”.`;
      return { outcome: "applied", result: { ok: true, message }, reason: message };
    },
    () => null,
  );
}

// Offboarding (issue 16): deactivate and reactivate a user, suspend and resume a tenant, reset a password.

const noUser = () => invalid("Nothing was saved. There is no such user (reload the page).");

export async function deactivateUserAction(raw: unknown): Promise<AdminResult> {
  return adminAction(
    "admin.user.deactivate",
    UserRef,
    raw,
    async (tx, input, viewer) => {
      let r;
      try {
        r = await deactivateUser(tx, input.userId, viewer);
      } catch (err) {
        if (!(err instanceof LastAdminError || err instanceof SelfDeactivationError)) throw err;
        return { outcome: "refused", result: fail("refused", `Not deactivated: ${err.message}`), reason: err.message };
      }
      if (!r) return noUser();
      const message = `Deactivated ${r.email}: ${r.sessionsEnded} session(s) ended, ${r.keysRevoked} API key(s) they created revoked; they cannot sign in.`;
      return { outcome: "applied", result: { ok: true, message }, reason: message };
    },
    () => null,
  );
}

export async function reactivateUserAction(raw: unknown): Promise<AdminResult> {
  return adminAction(
    "admin.user.reactivate",
    UserRef,
    raw,
    async (tx, input) => {
      const r = await reactivateUser(tx, input.userId);
      if (!r) return noUser();
      const message = `Reactivated ${r.email}: they can sign in again (API keys revoked at deactivation stay revoked).`;
      return { outcome: "applied", result: { ok: true, message }, reason: message };
    },
    () => null,
  );
}

export async function resetPasswordAction(raw: unknown): Promise<AdminResult> {
  return adminAction(
    "admin.user.password_reset",
    PasswordReset,
    raw,
    async (tx, input) => {
      const r = await resetPassword(tx, input.userId, input.password);
      if (!r) return noUser();
      // The password itself is never in the log or the answer.
      const message = `Set a new password for ${r.email}; their sessions ended. Give it to them over a channel you trust.`;
      return { outcome: "applied", result: { ok: true, message }, reason: `set a new password for ${r.email}; their sessions ended` };
    },
    () => null,
  );
}

export async function suspendTenantAction(raw: unknown): Promise<AdminResult> {
  return adminAction(
    "admin.tenant.suspend",
    TenantRef,
    raw,
    async (tx, input) => {
      const r = await suspendTenant(tx, input.id);
      if (!r) return invalid(`Nothing was saved. There is no tenant "${input.id}".`);
      const message = `Suspended tenant ${input.id}: ${r.sessionsEnded} member session(s) ended; its members cannot sign in and its API keys are refused. Its jobs stay readable to staff.`;
      return { outcome: "applied", result: { ok: true, message }, reason: message };
    },
    () => null,
  );
}

export async function resumeTenantAction(raw: unknown): Promise<AdminResult> {
  return adminAction(
    "admin.tenant.resume",
    TenantRef,
    raw,
    async (tx, input) => {
      if (!(await resumeTenant(tx, input.id))) return invalid(`Nothing was saved. There is no tenant "${input.id}".`);
      const message = `Resumed tenant ${input.id}: its members can sign in and its API keys work again.`;
      return { outcome: "applied", result: { ok: true, message }, reason: message };
    },
    () => null,
  );
}

import { headers } from "next/headers";
import type { Denied, Viewer } from "../auth/viewer";
import { pool } from "../db/client";
import { clientAddressOf } from "../http/client-address";
import type { AuditAction } from "./actions";
import { anonymousAudit } from "./anonymous";
import { recordAudit, type AuditPrincipal } from "./audit";

/** The audit log's view of a signed-in user. */
export function principalOf(viewer: Viewer): AuditPrincipal {
  return { userId: viewer.userId, actor: viewer.email, role: viewer.role, tenantId: viewer.tenantId };
}

/**
 * Record a console request that was refused before it reached the state machine:
 * denied by permissions (or signed out), or invalid input. Nothing else is written.
 * Signed-out callers are aggregated per client address (lib/audit/anonymous.ts).
 */
export async function auditRefusedRequest(
  who: Viewer | null,
  action: AuditAction,
  outcome: "denied" | "invalid",
  reason: string,
  jobIds: readonly string[] = [],
): Promise<void> {
  try {
    if (!who) {
      await anonymousAudit().record({ via: "console", action, outcome, reason, jobIds }, await requestAddress());
      return;
    }
    await recordAudit(pool(), { ...principalOf(who), via: "console", action, outcome, reason, jobIds });
  } catch (err) {
    console.error(`[jobscope] could not audit a ${outcome} ${action}:`, err);
  }
}

/** The client address of the request being served ("unknown" when called outside one, as tests do). */
async function requestAddress(): Promise<string> {
  try {
    return clientAddressOf(await headers());
  } catch {
    return "unknown";
  }
}

/** `auditRefusedRequest` for an authorization failure. */
export const auditDenied = (a: Denied, action: AuditAction, jobIds: readonly string[] = []) =>
  auditRefusedRequest(a.viewer, action, "denied", a.message, jobIds);

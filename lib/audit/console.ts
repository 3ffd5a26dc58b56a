import type { Denied, Viewer } from "../auth/viewer";
import { pool } from "../db/client";
import { ANONYMOUS, recordAudit, type AuditPrincipal } from "./audit";

/** The audit log's view of a signed-in user. */
export function principalOf(viewer: Viewer): AuditPrincipal {
  return { userId: viewer.userId, actor: viewer.email, role: viewer.role, tenantId: viewer.tenantId };
}

/**
 * Record a console request that was refused before it reached the state machine:
 * denied by permissions (or signed out), or invalid input. Nothing else is written.
 */
export async function auditRefusedRequest(
  who: Viewer | null,
  action: string,
  outcome: "denied" | "invalid",
  reason: string,
  jobIds: readonly string[] = [],
): Promise<void> {
  try {
    await recordAudit(pool(), { ...(who ? principalOf(who) : ANONYMOUS), via: "console", action, outcome, reason, jobIds });
  } catch (err) {
    console.error(`[jobscope] could not audit a ${outcome} ${action}:`, err);
  }
}

/** `auditRefusedRequest` for an authorization failure. */
export const auditDenied = (a: Denied, action: string, jobIds: readonly string[] = []) =>
  auditRefusedRequest(a.viewer, action, "denied", a.message, jobIds);

import "server-only";
import { headers } from "next/headers";
import type { Denied, Viewer } from "../auth/viewer";
import { clientAddressOf } from "../http/client-address";
import type { AuditAction } from "./actions";
import { anonymousAudit } from "./anonymous";
import type { AuditPrincipal } from "./audit";

/** The audit log's view of a signed-in user. */
export function principalOf(viewer: Viewer): AuditPrincipal {
  return { userId: viewer.userId, actor: viewer.email, role: viewer.role, tenantId: viewer.tenantId };
}

/**
 * Record a console request that was refused before it reached the state machine:
 * denied by permissions (or signed out), invalid input, or a refusal that rolled back. Nothing else
 * is written, so repeats are aggregated, for signed-in and signed-out callers alike (lib/audit/anonymous.ts).
 */
export async function auditRefusedRequest(
  who: Viewer | null,
  action: AuditAction,
  outcome: "denied" | "invalid" | "refused",
  reason: string,
  jobIds: readonly string[] = [],
): Promise<void> {
  try {
    // Aggregated per principal and client address (lib/audit/anonymous.ts): repeats of a refusal are one row a minute.
    await anonymousAudit().record({ via: "console", action, outcome, reason, jobIds }, await requestAddress(), who ? principalOf(who) : undefined);
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

"use server";

import type { AuditAction } from "@/lib/audit/actions";
import { recordAudit } from "@/lib/audit/audit";
import { auditDenied, auditRefusedRequest, principalOf } from "@/lib/audit/console";
import { ApiKeyError, canManageApiKeys, createApiKey, CreateKeyInput, managedTenant, revokeApiKey, RevokeKeyInput } from "@/lib/api/keys";
import { authorize, type Viewer } from "@/lib/auth/viewer";
import { pool } from "@/lib/db/client";
import type { KeyActionResult } from "./wire";

const refused = (code: "invalid_input" | "forbidden" | "not_found", message: string) => ({ ok: false, error: { code, message } }) as const;
const INTERNAL = { ok: false, error: { code: "internal", message: "The server could not complete this. Details are in the server log." } } as const;

/** The signed-in manager of keys, or the refusal (audited). A server action is a public POST: checked here, every time. */
async function manager(action: AuditAction): Promise<{ ok: true; viewer: Viewer } | { ok: false; result: ReturnType<typeof refused> }> {
  const auth = await authorize("jobs:read");
  if (!auth.ok) {
    await auditDenied(auth, action);
    return { ok: false, result: refused("forbidden", auth.message) };
  }
  if (!canManageApiKeys(auth.viewer)) {
    const message = "Only admins and tenant owners manage API keys.";
    await auditRefusedRequest(auth.viewer, action, "denied", message);
    return { ok: false, result: refused("forbidden", message) };
  }
  return { ok: true, viewer: auth.viewer };
}

/** Create a key; the secret is in this answer and nowhere else, ever. */
export async function createApiKeyAction(raw: unknown): Promise<KeyActionResult<{ secret: string; prefix: string; tenantId: string }>> {
  const action: AuditAction = "api_key.create";
  try {
    const m = await manager(action);
    if (!m.ok) return m.result;
    const { viewer } = m;
    const parsed = CreateKeyInput.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const message = `Not created: ${issue?.path.join(".") || "input"}: ${issue?.message ?? "invalid"}.`;
      await auditRefusedRequest(viewer, action, "invalid", message);
      return refused("invalid_input", message);
    }
    const own = managedTenant(viewer);
    if (own && parsed.data.tenantId !== own) {
      const message = "You may create keys for your own tenant only.";
      await auditRefusedRequest(viewer, action, "denied", message);
      return refused("forbidden", message);
    }
    const { key, secret } = await createApiKey(pool(), parsed.data, principalOf(viewer));
    return { ok: true, data: { secret, prefix: key.prefix, tenantId: key.tenantId } };
  } catch (err) {
    if (err instanceof ApiKeyError) return refused(err.code, `Not created: ${err.message}.`);
    console.error("createApiKeyAction failed:", err);
    return INTERNAL;
  }
}

/** Revoke a key at once. A tenant owner can reach only their tenant's keys; any other id is "no such key". */
export async function revokeApiKeyAction(raw: unknown): Promise<KeyActionResult<{ prefix: string }>> {
  const action: AuditAction = "api_key.revoke";
  try {
    const m = await manager(action);
    if (!m.ok) return m.result;
    const { viewer } = m;
    const parsed = RevokeKeyInput.safeParse(raw);
    if (!parsed.success) {
      await auditRefusedRequest(viewer, action, "invalid", "Not revoked: not a key id.");
      return refused("invalid_input", "Not revoked: not a key id.");
    }
    try {
      const key = await revokeApiKey(pool(), { id: parsed.data.id, tenantId: managedTenant(viewer) }, principalOf(viewer));
      return { ok: true, data: { prefix: key.prefix } };
    } catch (err) {
      if (!(err instanceof ApiKeyError)) throw err;
      await recordAudit(pool(), { ...principalOf(viewer), via: "console", action, outcome: "refused", reason: `${err.code}: key ${parsed.data.id}` });
      return refused(err.code, err.message);
    }
  } catch (err) {
    console.error("revokeApiKeyAction failed:", err);
    return INTERNAL;
  }
}

"use server";

import { principalOf } from "@/lib/audit/console";
import { canManageApiKeys, createApiKey, CreateKeyInput, managedTenant, revokeApiKey, RevokeKeyInput } from "@/lib/api/keys";
import { pool } from "@/lib/db/client";
import { consoleAction } from "@/lib/frame/action";
import { AppError, describeInvalid } from "@/lib/result";

// Signed in (any role may ask), then only admins and tenant owners; lib/api/keys.ts writes each
// key change with its own audit row, in its own transaction.
const KEYS = {
  permission: "jobs:read",
  may: (viewer) => (canManageApiKeys(viewer) ? null : "Only admins and tenant owners manage API keys."),
  failed: "The server could not complete this. Details are in the server log.",
} as const satisfies Pick<Parameters<typeof consoleAction>[0], "permission" | "may" | "failed">;

/** Create a key; the secret is in this answer and nowhere else, ever. */
export const createApiKeyAction = consoleAction({
  ...KEYS,
  audit: "api_key.create",
  input: CreateKeyInput,
  invalid: (e) => `Not created: ${describeInvalid(e)}.`,
  call: async ({ input, viewer }) => {
    const own = managedTenant(viewer);
    if (own && input.tenantId !== own) throw new AppError("forbidden", "You may create keys for your own tenant only.");
    try {
      const { key, secret } = await createApiKey(pool(), input, principalOf(viewer));
      return { ok: true, data: { secret, prefix: key.prefix, tenantId: key.tenantId } };
    } catch (err) {
      if (err instanceof AppError) throw err.rephrase(`Not created: ${err.userMessage}.`);
      throw err;
    }
  },
});

/** Revoke a key at once. A tenant owner can reach only their tenant's keys; any other id is "no such key". */
export const revokeApiKeyAction = consoleAction({
  ...KEYS,
  audit: "api_key.revoke",
  input: RevokeKeyInput,
  invalid: () => "Not revoked: not a key id.",
  call: async ({ input, viewer }) => {
    try {
      const key = await revokeApiKey(pool(), { id: input.id, tenantId: managedTenant(viewer) }, principalOf(viewer));
      return { ok: true, data: { prefix: key.prefix } };
    } catch (err) {
      // The audit row names the key asked for; the answer only that there is none to revoke.
      if (err instanceof AppError) throw new AppError(err.code, err.userMessage, { reason: `${err.code}: key ${input.id}` });
      throw err;
    }
  },
});

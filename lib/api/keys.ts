import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import type { Principal } from "../auth/permissions";
import { recordAudit, type AuditPrincipal } from "../audit/audit";
import { and, desc, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { columnsExcept, execute, run } from "../db/drizzle";
import { apiKeys } from "../db/schema-identity";
import { withScope } from "../db/scope";
import { AppError, describeInvalid } from "../result";

/**
 * Per-tenant API keys. A key is `jsk_` + 32 random bytes in base64url; the
 * database keeps only its SHA-256 (hex) and the first characters (to
 * recognise it in a list). The secret is returned once, by `createApiKey`.
 */
export const KEY_PREFIX = "jsk_";
const KEY_SHAPE = /^jsk_[A-Za-z0-9_-]{43}$/;
/** `jsk_` and 8 characters of the secret: 48 random bits, enough to tell keys apart, useless to guess the rest. */
export const DISPLAY_PREFIX_LENGTH = 12;
/** `last_used_at` is written at most this often per key: a busy key does not turn every request into a write. */
export const LAST_USED_EVERY_MS = 60_000;

export const hashKey = (secret: string) => createHash("sha256").update(secret, "utf8").digest("hex");

export function generateKey(): { secret: string; prefix: string; hash: string } {
  const secret = KEY_PREFIX + randomBytes(32).toString("base64url");
  return { secret, prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH), hash: hashKey(secret) };
}

/** What a request authenticated with a key may act as. */
export type ApiKeyPrincipal = { keyId: string; tenantId: string; prefix: string };

/** The state machine's and the audit log's name for a key: never the secret. */
export const keyActorId = (k: Pick<ApiKeyPrincipal, "prefix">) => `api-key:${k.prefix}`;

export const auditPrincipalOfKey = (k: ApiKeyPrincipal): AuditPrincipal => ({
  userId: null,
  actor: keyActorId(k),
  role: "tenant",
  tenantId: k.tenantId,
});

/**
 * The key in an `Authorization: Bearer jsk_…` header, if it is live: known,
 * not revoked. Anything else (no header, another scheme, a malformed or
 * unknown or revoked key) is null; the caller answers 401 alike for all.
 */
export async function verifyApiKey(db: Db, authorization: string | null, now = new Date()): Promise<ApiKeyPrincipal | null> {
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? "");
  const secret = m?.[1];
  if (!secret || !KEY_SHAPE.test(secret)) return null;
  // A lookup by the digest: the comparison is of hashes, so its timing says nothing about the secret.
  // api_keys is under row-level security and a request's tenant is not known yet: a SECURITY DEFINER
  // function returns the one live key with this hash, of a tenant that is not suspended, and writes
  // last_used_at at most once a minute (drizzle/0015_rls_identity.sql).
  const [row] = await execute<{ id: string; tenantId: string; prefix: string }>(
    db,
    sql`
    SELECT id, tenant_id, prefix FROM jobscope_use_api_key(${hashKey(secret)}, ${now}, ${LAST_USED_EVERY_MS} * interval '1 millisecond')`,
  );
  if (!row) return null;
  return { keyId: row.id, tenantId: row.tenantId, prefix: row.prefix };
}

// ---------------------------------------------------------------------------
// Management (the /api-keys page): admins for any tenant, tenant owners for their own.

/** Who may manage a tenant's keys: admins (any tenant) and a tenant's owners (their own). */
export type KeyManager = Principal & { tenantOwner: boolean };

export function canManageApiKeys(m: KeyManager | null): boolean {
  if (!m) return false;
  if (m.role === "admin") return true;
  return m.role === "tenant" && m.tenantOwner && !!m.tenantId;
}

/** The tenants `m` may manage keys of: null = every tenant. */
export const managedTenant = (m: KeyManager): string | null => (m.role === "admin" ? null : m.tenantId);

export const CreateKeyInput = z.strictObject({
  tenantId: z.string().trim().min(1, "choose a tenant").max(100),
  name: z.string().trim().min(1, "give the key a name").max(100, "at most 100 characters"),
});
export const RevokeKeyInput = z.strictObject({ id: z.uuid() });

/** Live keys a tenant may hold at once (JOBSCOPE_API_KEYS_PER_TENANT, default 10). */
export function maxKeysPerTenant(env = process.env): number {
  const n = Number(env.JOBSCOPE_API_KEYS_PER_TENANT);
  return Number.isInteger(n) && n >= 1 ? n : 10;
}

/** What a list or a change returns of a key: every column but its hash. */
const keyColumns = columnsExcept(apiKeys, "hash");
export type ApiKeyRow = Omit<typeof apiKeys.$inferSelect, "hash">;

/**
 * Create a key for `tenantId`; the returned secret is never stored and never
 * shown again. The key and its audit row commit together.
 */
export async function createApiKey(
  db: Db,
  input: { tenantId: string; name: string },
  by: AuditPrincipal,
): Promise<{ key: ApiKeyRow; secret: string }> {
  const parsed = CreateKeyInput.safeParse(input);
  if (!parsed.success) throw new AppError("invalid_input", describeInvalid(parsed.error));
  const { tenantId, name } = parsed.data;
  const { secret, prefix, hash } = generateKey();
  // Scoped to the key's tenant: row-level security lets the transaction write only that tenant's keys.
  return (await withScope(db, { tenantId }, async (tx) => {
    const [tenant] = await execute(tx, sql`SELECT 1 AS one FROM tenants WHERE id = ${tenantId}`);
    if (!tenant) throw new AppError("invalid_input", `unknown tenant ${JSON.stringify(tenantId)}`);
    // One creation at a time per tenant (until this transaction ends), so the count below is the truth when the key is added.
    await execute(tx, sql`SELECT pg_advisory_xact_lock(hashtext('jobscope.api_keys'), hashtext(${tenantId}))`);
    const max = maxKeysPerTenant();
    const [live] = await execute<{ n: number }>(
      tx,
      sql`SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = ${tenantId} AND revoked_at IS NULL`,
    );
    if (live!.n >= max) throw new AppError("refused", `tenant ${tenantId} has ${live!.n} live keys, at most ${max}: revoke one first`);
    const [key] = await run(tx.insert(apiKeys).values({ tenantId, name, prefix, hash, createdBy: by.actor }).returning(keyColumns));
    await recordAudit(tx, {
      ...by,
      via: "console",
      action: "api_key.create",
      outcome: "applied",
      reason: `key ${prefix}… "${name}" for tenant ${tenantId}`,
    });
    return { key: key!, secret };
  })) as { key: ApiKeyRow; secret: string };
}

/**
 * Revoke a key: from now on it authenticates nothing. `tenantId` confines a
 * tenant owner to their own keys; another tenant's key is "not found", the
 * same answer as a key that does not exist. Revoking twice is refused.
 */
export async function revokeApiKey(db: Db, input: { id: string; tenantId: string | null }, by: AuditPrincipal): Promise<ApiKeyRow> {
  if (!RevokeKeyInput.safeParse({ id: input.id }).success) throw new AppError("not_found", "No such API key.");
  return (await withScope(db, input.tenantId ? { tenantId: input.tenantId } : { all: true }, async (tx) => {
    const [key] = await run(
      tx
        .update(apiKeys)
        .set({ revokedAt: sql`now()` })
        .where(and(eq(apiKeys.id, input.id), isNull(apiKeys.revokedAt), input.tenantId ? eq(apiKeys.tenantId, input.tenantId) : undefined))
        .returning(keyColumns),
    );
    if (!key) throw new AppError("not_found", "No such API key, or it is already revoked.");
    await recordAudit(tx, {
      ...by,
      via: "console",
      action: "api_key.revoke",
      outcome: "applied",
      reason: `key ${key.prefix}… "${key.name}" of tenant ${key.tenantId}`,
    });
    return key;
  })) as ApiKeyRow;
}

/** Keys of one tenant, or of all (`null`), newest first. Never the hash. */
export async function listApiKeys(db: Db, tenantId: string | null): Promise<ApiKeyRow[]> {
  return withScope(db, tenantId ? { tenantId } : { all: true }, (tx) =>
    run(
      tx
        .select(keyColumns)
        .from(apiKeys)
        .where(tenantId ? eq(apiKeys.tenantId, tenantId) : undefined)
        .orderBy(isNotNull(apiKeys.revokedAt), desc(apiKeys.createdAt), apiKeys.id)
        .limit(500),
    ),
  );
}

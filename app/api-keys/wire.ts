/** A key as the page shows it: times already formatted (UTC) on the server; never the hash or the secret. */
export type KeyView = {
  id: string;
  tenantId: string;
  name: string;
  prefix: string;
  createdBy: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
};

export type KeyActionResult<T> =
  { ok: true; data: T } | { ok: false; error: { code: "invalid_input" | "forbidden" | "not_found" | "internal"; message: string } };

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

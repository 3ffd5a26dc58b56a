/** A key as the page shows it: times as ISO strings (the page shows them in the viewer's zone); never the hash or the secret. */
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

export type TenantOption = { id: string; name: string };

/**
 * What was typed in the jobs list's tenant picker (staff only), as a tenant id: an id or a name in
 * any case, or a part of either when only one tenant has it ("acm", "Acme"); otherwise what was
 * typed, which the list then matches exactly (and finds nothing).
 */
export function resolveTenant(typed: string | undefined, tenants: readonly TenantOption[]): string | undefined {
  if (!typed?.trim()) return undefined;
  const t = typed.trim().toLowerCase();
  const exact = tenants.find((x) => x.id.toLowerCase() === t || x.name.toLowerCase() === t);
  if (exact) return exact.id;
  const partial = tenants.filter((x) => x.id.toLowerCase().includes(t) || x.name.toLowerCase().includes(t));
  return partial.length === 1 ? partial[0]!.id : typed.trim();
}

import { z } from "zod";
import type { Db } from "../db/client";
import { AppError } from "../result";
import { isNull, sql } from "drizzle-orm";
import { execute, run } from "../db/drizzle";
import { tenants } from "../db/schema";
import type { TenantOption } from "../jobs/tenant-pick";

/** A tenant id is a slug: it appears in URLs, filters, API keys and every job row. */
export const TenantId = z
  .string()
  .trim()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/, "use 1–40 lowercase letters, digits and dashes (not at either end)");

/** A display name: any text a person types (markup included: it is always rendered as text), but no control characters. */
export const TenantName = z
  .string()
  .trim()
  .min(1, "a tenant needs a name")
  .max(200)
  .regex(/^[^\u0000-\u001f\u007f]*$/, "no control characters");

export const NewTenant = z.strictObject({ id: TenantId, name: TenantName });
export const TenantRename = z.strictObject({ id: TenantId, name: TenantName });

export type TenantRow = { id: string; name: string; createdAt: Date; users: number; suspendedAt: Date | null };

/** Create a tenant; a taken id is refused, never overwritten. Throws a ZodError on bad input. */
export async function createTenant(db: Db, raw: z.input<typeof NewTenant>): Promise<TenantRow> {
  const t = NewTenant.parse(raw);
  const [row] = await execute<TenantRow>(
    db,
    sql`
    INSERT INTO tenants (id, name) VALUES (${t.id}, ${t.name})
    ON CONFLICT (id) DO NOTHING
    RETURNING id, name, created_at, 0 AS users, suspended_at`,
  );
  // Refused because the id is taken (ids are never reused or changed).
  if (!row) throw new AppError("invalid_input", `A tenant with id "${t.id}" already exists.`);
  return row;
}

/** Every tenant with its number of users, by id. */
export async function listTenants(db: Db): Promise<TenantRow[]> {
  return execute<TenantRow>(
    db,
    sql`
    SELECT t.id, t.name, t.created_at, (SELECT count(*)::int FROM users u WHERE u.tenant_id = t.id) AS users, t.suspended_at
    FROM tenants t ORDER BY t.id LIMIT 1000`,
  );
}

/**
 * The tenants a console picker offers, by id (the first 1,000): every one, or with `activeOnly` those
 * not suspended (a job can be submitted only for them).
 */
export async function listTenantOptions(db: Db, { activeOnly = false } = {}): Promise<TenantOption[]> {
  return run(
    db
      .select({ id: tenants.id, name: tenants.name })
      .from(tenants)
      .where(activeOnly ? isNull(tenants.suspendedAt) : undefined)
      .orderBy(tenants.id)
      .limit(1000),
  );
}

/** Rename a tenant (its id stays); null when there is no such tenant. Throws a ZodError on bad input. */
export async function renameTenant(db: Db, raw: z.input<typeof TenantRename>): Promise<TenantRow | null> {
  const t = TenantRename.parse(raw);
  const [row] = await execute<TenantRow>(
    db,
    sql`
    UPDATE tenants SET name = ${t.name} WHERE id = ${t.id}
    RETURNING id, name, created_at, (SELECT count(*)::int FROM users u WHERE u.tenant_id = tenants.id) AS users, suspended_at`,
  );
  return row ?? null;
}

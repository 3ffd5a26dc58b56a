import { randomUUID } from "node:crypto";
import { hashPassword } from "better-auth/crypto";
import { z } from "zod";
import type { Db, Sql } from "../db/client";
import { ROLES, type Role } from "./permissions";

export const NewUser = z
  .strictObject({
    email: z.email().max(200).transform((e) => e.toLowerCase()),
    name: z.string().trim().min(1).max(100),
    password: z.string().min(10, "at least 10 characters").max(200),
    role: z.enum(ROLES),
    tenantId: z.string().trim().min(1).max(100).nullable().default(null),
    tenantOwner: z.boolean().default(false),
  })
  .refine((u) => (u.role === "tenant") === (u.tenantId !== null), {
    message: "a tenant member needs a tenant; staff have none",
    path: ["tenantId"],
  });
export type NewUser = z.input<typeof NewUser>;

export type UserRow = {
  id: string;
  email: string;
  name: string;
  role: Role;
  tenantId: string | null;
  tenantOwner: boolean;
  createdAt: Date;
};

/**
 * Create a user who signs in with email and password. The password is hashed by
 * better-auth's own hasher and stored the way its sign-up stores it (a "credential"
 * account), so better-auth's sign-in verifies it.
 */
export async function createUser(sql: Sql, raw: NewUser): Promise<UserRow> {
  const u = NewUser.parse(raw);
  const hash = await hashPassword(u.password);
  const id = randomUUID();
  return (await sql.begin(async (tx) => {
    const [row] = await tx<UserRow[]>`
      INSERT INTO users (id, name, email, role, tenant_id, tenant_owner)
      VALUES (${id}, ${u.name}, ${u.email}, ${u.role}, ${u.tenantId}, ${u.tenantOwner})
      RETURNING id, email, name, role, tenant_id, tenant_owner, created_at`;
    await tx`
      INSERT INTO accounts (id, account_id, provider_id, user_id, password)
      VALUES (${randomUUID()}, ${id}, 'credential', ${id}, ${hash})`;
    return row!;
  })) as UserRow;
}

export async function listUsers(sql: Db): Promise<UserRow[]> {
  return sql<UserRow[]>`
    SELECT id, email, name, role, tenant_id, tenant_owner, created_at FROM users ORDER BY role, email LIMIT 1000`;
}

export const RoleChange = z
  .strictObject({
    userId: z.string().min(1).max(100),
    role: z.enum(ROLES),
    tenantId: z.string().trim().min(1).max(100).nullable().default(null),
    tenantOwner: z.boolean().default(false),
  })
  .refine((u) => (u.role === "tenant") === (u.tenantId !== null), {
    message: "a tenant member needs a tenant; staff have none",
    path: ["tenantId"],
  });

/** Change a user's role (and tenant); their sessions end, so the new role applies at once. */
export async function setUserRole(sql: Sql, raw: z.input<typeof RoleChange>): Promise<UserRow | null> {
  const c = RoleChange.parse(raw);
  return (await sql.begin(async (tx) => {
    const [row] = await tx<UserRow[]>`
      UPDATE users SET role = ${c.role}, tenant_id = ${c.tenantId}, tenant_owner = ${c.tenantOwner}, updated_at = now()
      WHERE id = ${c.userId}
      RETURNING id, email, name, role, tenant_id, tenant_owner, created_at`;
    if (row) await tx`DELETE FROM sessions WHERE user_id = ${c.userId}`;
    return row ?? null;
  })) as UserRow | null;
}

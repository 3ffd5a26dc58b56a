import { randomUUID } from "node:crypto";
import { hashPassword } from "better-auth/crypto";
import { z } from "zod";
import type { Db } from "../db/client";
import { columnList, columnsExcept, execute, run } from "../db/drizzle";
import { users } from "../db/schema-identity";
import { AppError } from "../result";
import { ROLES, type Role } from "./permissions";
import { sql } from "drizzle-orm";

/** A user's role and tenant, as a new user and a role change give them. */
const membership = {
  role: z.enum(ROLES),
  tenantId: z.string().trim().min(1).max(100).nullable().default(null),
  tenantOwner: z.boolean().default(false),
};
/** A tenant member needs a tenant; staff have none. */
const tenantMatchesRole = <T extends z.ZodType<{ role: Role; tenantId: string | null }>>(schema: T) =>
  schema.refine((u) => (u.role === "tenant") === (u.tenantId !== null), {
    message: "a tenant member needs a tenant; staff have none",
    path: ["tenantId"],
  });

export const NewUser = tenantMatchesRole(
  z.strictObject({
    email: z
      .email()
      .max(200)
      .transform((e) => e.toLowerCase()),
    name: z.string().trim().min(1).max(100),
    password: z.string().min(10, "at least 10 characters").max(200),
    ...membership,
  }),
);
export type NewUser = z.input<typeof NewUser>;

/** What a list or a change returns of a user: not better-auth's fields Jobscope does not use, nor when it last changed. */
const userColumns = columnsExcept(users, "emailVerified", "image", "updatedAt");
export type UserRow = Pick<typeof users.$inferSelect, keyof typeof userColumns>;

/**
 * Create a user who signs in with email and password. The password is hashed by
 * better-auth's own hasher and stored the way its sign-up stores it (a "credential"
 * account), so better-auth's sign-in verifies it.
 */
export async function createUser(db: Db, raw: NewUser): Promise<UserRow> {
  const u = NewUser.parse(raw);
  const hash = await hashPassword(u.password);
  const id = randomUUID();
  // Its own transaction, or a savepoint inside the caller's (an audit row commits with the change).
  return (await db.transaction(async (tx) => {
    const [row] = await execute<UserRow>(
      tx,
      sql`
      INSERT INTO users (id, name, email, role, tenant_id, tenant_owner)
      VALUES (${id}, ${u.name}, ${u.email}, ${u.role}, ${u.tenantId}, ${u.tenantOwner})
      RETURNING ${columnList(userColumns)}`,
    );
    await execute(
      tx,
      sql`
      INSERT INTO accounts (id, account_id, provider_id, user_id, password)
      VALUES (${randomUUID()}, ${id}, 'credential', ${id}, ${hash})`,
    );
    return row!;
  })) as UserRow;
}

export async function listUsers(db: Db): Promise<UserRow[]> {
  return run(db.select(userColumns).from(users).orderBy(users.role, users.email).limit(1000));
}

export const RoleChange = tenantMatchesRole(z.strictObject({ userId: z.string().min(1).max(100), ...membership }));

/** Refused: the change would leave nobody able to manage users. */
export const lastAdminRefusal = () => new AppError("refused", "This is the last admin: make someone else an admin first.");

/**
 * Change a user's role (and tenant); their sessions end, so the new role applies at once.
 * Demoting the last admin is refused (`lastAdminRefusal`): the admins' rows are locked first,
 * so two admins demoting each other at once cannot both succeed.
 */
export async function setUserRole(db: Db, raw: z.input<typeof RoleChange>): Promise<UserRow | null> {
  const c = RoleChange.parse(raw);
  return (await db.transaction(async (tx) => {
    if (c.role !== "admin") {
      const admins = await execute<{ id: string }>(tx, sql`SELECT id FROM users WHERE role = 'admin' ORDER BY id FOR UPDATE`);
      if (admins.length === 1 && admins[0]!.id === c.userId) throw lastAdminRefusal();
    }
    const [row] = await execute<UserRow>(
      tx,
      sql`
      UPDATE users SET role = ${c.role}, tenant_id = ${c.tenantId}, tenant_owner = ${c.tenantOwner}, updated_at = now()
      WHERE id = ${c.userId}
      RETURNING ${columnList(userColumns)}`,
    );
    if (row) await execute(tx, sql`DELETE FROM sessions WHERE user_id = ${c.userId}`);
    return row ?? null;
  })) as UserRow | null;
}

import type { Db } from "../db/client";
import { createUser } from "../auth/users";
import { DEMO_PASSWORD, DEMO_USERS } from "./users";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/** Create the demo users that do not exist yet (tenants must exist). Returns the logins. */
export async function seedDemoUsers(db: Db): Promise<string[]> {
  const lines: string[] = [];
  for (const u of Object.values(DEMO_USERS)) {
    const [exists] = await execute(db, sql`SELECT 1 FROM users WHERE email = ${u.email}`);
    if (!exists) {
      await createUser(db, { ...u, password: DEMO_PASSWORD, tenantOwner: u.role === "tenant" && u.tenantId === "acme" });
    }
    lines.push(`${u.role.padEnd(8)} ${u.email}${u.tenantId ? ` (tenant ${u.tenantId})` : ""}`);
  }
  return lines;
}

import { createHmac } from "node:crypto";
import { sql } from "drizzle-orm";
import { closeDb, connect } from "./client";
import { execute } from "./drizzle";

/** The database roles a running Jobscope uses (drizzle/0005_identity.sql creates them). */
export const RUNTIME_ROLES = { app: "jobscope_app", worker: "jobscope_worker" } as const;
export type RuntimeRole = keyof typeof RUNTIME_ROLES;

/** A role's password, derived from the deployment secret: every process that knows the secret agrees. */
export function rolePassword(secret: string, role: RuntimeRole): string {
  return createHmac("sha256", secret).update(`db-role:${RUNTIME_ROLES[role]}`).digest("hex");
}

/** `ownerUrl` with the role's credentials instead of the owner's. */
export function roleUrl(ownerUrl: string, secret: string, role: RuntimeRole): string {
  const u = new URL(ownerUrl);
  u.username = RUNTIME_ROLES[role];
  u.password = rolePassword(secret, role);
  return u.toString();
}

/**
 * Let the runtime roles log in, with passwords derived from `secret`, and
 * return their URLs. Run as the owner (it needs CREATEROLE), after migrating.
 * Deployments that manage roles themselves set JOBSCOPE_APP_DATABASE_URL and
 * JOBSCOPE_WORKER_DATABASE_URL instead.
 */
export async function provisionRoles(ownerUrl: string, secret: string): Promise<Record<RuntimeRole, string>> {
  const fromEnv = { app: process.env.JOBSCOPE_APP_DATABASE_URL, worker: process.env.JOBSCOPE_WORKER_DATABASE_URL };
  if (fromEnv.app && fromEnv.worker) return { app: fromEnv.app, worker: fromEnv.worker };
  const db = connect(ownerUrl, { max: 1 });
  try {
    for (const role of Object.keys(RUNTIME_ROLES) as RuntimeRole[]) {
      // A hex digest: safe inside the literal, which ALTER ROLE cannot take as a parameter.
      await execute(db, sql.raw(`ALTER ROLE ${RUNTIME_ROLES[role]} LOGIN PASSWORD '${rolePassword(secret, role)}'`));
    }
  } finally {
    await closeDb(db);
  }
  return { app: fromEnv.app ?? roleUrl(ownerUrl, secret, "app"), worker: fromEnv.worker ?? roleUrl(ownerUrl, secret, "worker") };
}

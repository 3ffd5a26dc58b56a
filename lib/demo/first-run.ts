import type { Db } from "../db/client";
import { ensureBuiltinTenant } from "../jobs/bulk";
import { catchUpMetrics } from "../metrics/rollup";
import { BUILTIN_TENANT } from "../jobs/job-types";
import { seedDemo } from "./seed";
import { seedDemoUsers } from "./seed-users";
import { DEMO_PASSWORD } from "./users";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * `npm start` is the demo when it runs its own embedded PostgreSQL: demo data, demo traffic and a
 * demo user per role with one known password. With DATABASE_URL set (a real database), or with
 * `--deployment`, it is a deployment: no demo data, no demo users — anyone who read the README
 * would know their password — and the first admin is created with `npm run user:create`.
 */
export const isDemoStart = (env: Record<string, string | undefined>, deployment: boolean) => !env.DATABASE_URL && !deployment;

export const FIRST_ADMIN_COMMAND = 'npm run user:create -- --email you@example.com --name "Your Name" --role admin';

/**
 * Prepare the database for `npm start`: in the demo, seed the demo (first run only) and its users;
 * in a deployment, nothing but Jobscope's own tenant. Returns what to tell the person who started it.
 */
export async function prepareFirstRun(db: Db, opts: { demo: boolean; demoJobs: number; log: (s: string) => void }): Promise<string[]> {
  if (opts.demo) {
    // Jobscope's own tenant does not count: a database with no other tenant has no demo yet.
    const [{ n } = { n: 0 }] = await execute<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM tenants WHERE id <> ${BUILTIN_TENANT}`);
    if (n === 0) {
      opts.log(`seeding demo data (${opts.demoJobs} job histories)…`);
      const t0 = Date.now();
      const { slowExportId } = await seedDemo(db, { jobs: opts.demoJobs, log: opts.log });
      opts.log(`seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s; the slow export is job ${slowExportId}`);
      // The seed's back-dated day in the per-type history charts: the metrics roll-up starts from it.
      await catchUpMetrics(db, new Date(t0 - 26 * 3_600_000));
    }
  }
  // The tenant of the built-in jobs (bulk actions), before anyone can count the tenants.
  await ensureBuiltinTenant(db);
  if (opts.demo) {
    const logins = await seedDemoUsers(db);
    return [`demo logins (password "${DEMO_PASSWORD}"):\n    ${logins.join("\n    ")}`];
  }
  const [{ admins } = { admins: 0 }] = await execute<{ admins: number }>(
    db,
    sql`SELECT count(*)::int AS admins FROM users WHERE role = 'admin' AND deactivated_at IS NULL`,
  );
  if (admins > 0) return [];
  return [`no admin yet: create the first one (it prints a password, shown once):\n    ${FIRST_ADMIN_COMMAND}`];
}

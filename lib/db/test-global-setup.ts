import { rmSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { ensureDatabase, startEmbeddedPostgres } from "./embedded";
import { migrateDatabase } from "./migrate";
import { provisionRoles } from "./roles";
import { TEST_SECRET } from "./test-db";

declare module "vitest" {
  export interface ProvidedContext {
    templateAdminUrl: string;
  }
}

export const TEMPLATE_DB = "jobscope_test_template";

/**
 * Database tests run against a real PostgreSQL: the server at
 * TEST_DATABASE_URL (an admin URL) if set, otherwise a fresh embedded one.
 * Migrations run once into a template; each test file gets its own database
 * copied from it (see `test-db.ts`).
 */
export default async function setup(project: TestProject) {
  let adminUrl = process.env.TEST_DATABASE_URL;
  let stop: (() => Promise<void>) | undefined;
  if (!adminUrl) {
    // One data dir per run, so two test runs on one machine do not share a server.
    const dataDir = `.data/test-pg-${process.pid}`;
    const server = await startEmbeddedPostgres({ dataDir, fresh: true });
    adminUrl = server.adminUrl;
    stop = async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  }
  const templateUrl = await ensureDatabase(adminUrl, TEMPLATE_DB);
  await migrateDatabase(templateUrl);
  await provisionRoles(templateUrl, TEST_SECRET);
  project.provide("templateAdminUrl", adminUrl);
  return async () => {
    await stop?.();
  };
}

import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, closePool, closeReadPool, connect, pool, readPool, type Db } from "./client";
import { ensureDatabase, startEmbeddedPostgres, type EmbeddedServer } from "./embedded";
import { migrateDatabase } from "./migrate";
import { primaryLsn, readPoolAfter } from "./read-your-writes";
import { provisionRoles, roleUrl } from "./roles";
import { withScope } from "./scope";
import { startStandby } from "./standby";
import { TEST_SECRET } from "./test-db";
import { waitFor } from "./test-wait";
import { newJob, operator, seedTenants } from "../jobs/test-helpers";
import { transition } from "../jobs/transition";
import { sql } from "drizzle-orm";
import { execute } from "./drizzle";

/**
 * DATABASE_READ_URL against a real streaming standby (not a second database): a base backup of
 * an embedded primary, replaying its WAL. The console's tolerant reads go there, except right
 * after a person's own write, until the standby has replayed it (read-your-writes).
 */
const primaryDir = `.data/test-standby-primary-${process.pid}`;
const standbyDir = `.data/test-standby-replica-${process.pid}`;
let primary: EmbeddedServer;
let standby: Awaited<ReturnType<typeof startStandby>>;
let primaryUrl = "";
let standbyUrl = "";
const saved = { url: process.env.DATABASE_URL, read: process.env.DATABASE_READ_URL };

const dbUrl = (adminUrl: string) => {
  const u = new URL(adminUrl);
  u.pathname = "/jobscope";
  return u.toString();
};

async function caughtUp(lsn: string) {
  const s = connect(dbUrl(standby.adminUrl), { max: 1 });
  try {
    await waitFor(
      `the standby to replay up to ${lsn}`,
      async () => (await execute<{ ok: boolean }>(s, sql`SELECT pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn AS ok`))[0]?.ok,
    );
  } finally {
    await closeDb(s);
  }
}

beforeAll(async () => {
  primary = await startEmbeddedPostgres({ dataDir: primaryDir, fresh: true });
  primaryUrl = await ensureDatabase(primary.adminUrl, "jobscope");
  await migrateDatabase(primaryUrl);
  await provisionRoles(primaryUrl, TEST_SECRET);
  const owner = connect(primaryUrl, { max: 2 });
  await seedTenants(owner);
  await closeDb(owner);
  standby = await startStandby({ adminUrl: primary.adminUrl, dataDir: primaryDir }, standbyDir);
  standbyUrl = dbUrl(standby.adminUrl);
  // The console's own role on each: roles and their passwords are in the replicated catalogs.
  process.env.DATABASE_URL = roleUrl(primaryUrl, TEST_SECRET, "app");
  process.env.DATABASE_READ_URL = roleUrl(standbyUrl, TEST_SECRET, "app");
  const lsnOf = connect(primaryUrl, { max: 1 });
  await caughtUp(await primaryLsn(lsnOf).finally(() => closeDb(lsnOf)));
}, 180_000);

afterAll(async () => {
  await closeReadPool();
  await closePool();
  process.env.DATABASE_URL = saved.url;
  if (saved.read === undefined) delete process.env.DATABASE_READ_URL;
  else process.env.DATABASE_READ_URL = saved.read;
  await standby?.stop();
  await primary?.stop();
  rmSync(primaryDir, { recursive: true, force: true });
});

describe("DATABASE_READ_URL on a streaming standby", () => {
  it("is a real standby: in recovery, read-only, replaying the primary's writes", async () => {
    const s = connect(standbyUrl, { max: 1 });
    const owner = connect(primaryUrl, { max: 1 });
    try {
      const [r] = await execute<{ recovering: boolean }>(s, sql`SELECT pg_is_in_recovery() AS recovering`);
      expect(r!.recovering).toBe(true);
      const job = await newJob(owner);
      await caughtUp(await primaryLsn(owner));
      const [seen] = await execute<{ n: number }>(s, sql`SELECT count(*)::int AS n FROM job_catalog WHERE id = ${job.id}`);
      expect(seen!.n).toBe(1);
      await expect(execute(s, sql`CREATE TABLE nope (x int)`)).rejects.toThrow(/read-only transaction/);
      expect((await execute<{ r: boolean }>(readPool(), sql`SELECT pg_is_in_recovery() AS r`))[0]!.r).toBe(true);
      expect((await execute<{ r: boolean }>(pool(), sql`SELECT pg_is_in_recovery() AS r`))[0]!.r).toBe(false);
    } finally {
      await closeDb(s);
      await closeDb(owner);
    }
  });

  it("reads a person's own change from the primary until the standby has replayed it", async () => {
    const superStandby = connect(standbyUrl, { max: 1 });
    const owner = connect(primaryUrl, { max: 1 });
    try {
      const job = await newJob(owner);
      await caughtUp(await primaryLsn(owner));
      // Hold the standby back, then change the job on the primary as an operator would.
      await execute(superStandby, sql`SELECT pg_wal_replay_pause()`);
      const r = await withScope(pool(), { all: true }, (tx) => transition(tx, { jobId: job.id, event: "cancel", actor: operator }));
      expect(r.ok).toBe(true);
      const lsn = await primaryLsn(pool());
      const stateOn = async (db: Db) =>
        withScope(
          db,
          { all: true },
          async (tx) => (await execute<{ state: string }>(tx, sql`SELECT state FROM jobs WHERE id = ${job.id}`))[0]?.state,
        );
      // The standby alone would show the page from before the change…
      expect(await stateOn(readPool())).toBe("queued");
      // …so the reads after it go to the primary while the standby lags,
      const afterWrite = await readPoolAfter(lsn);
      expect(afterWrite).toBe(pool());
      expect(await stateOn(afterWrite)).toBe("cancelled");
      // and back to the standby once it has replayed the change.
      await execute(superStandby, sql`SELECT pg_wal_replay_resume()`);
      await caughtUp(lsn);
      const later = await readPoolAfter(lsn);
      expect(later).toBe(readPool());
      expect(await stateOn(later)).toBe("cancelled");
      // A browser with no recent write of its own reads the standby without asking.
      expect(await readPoolAfter(null)).toBe(readPool());
    } finally {
      await execute(superStandby, sql`SELECT pg_wal_replay_resume()`).catch(() => {});
      await closeDb(superStandby);
      await closeDb(owner);
    }
  });
});

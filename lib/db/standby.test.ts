import { rmSync } from "node:fs";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePool, closeReadPool, pool, readPool } from "./client";
import { ensureDatabase, startEmbeddedPostgres, type EmbeddedServer } from "./embedded";
import { migrateDatabase } from "./migrate";
import { primaryLsn, readPoolAfter } from "./read-your-writes";
import { provisionRoles, roleUrl } from "./roles";
import { withScope } from "./scope";
import { startStandby } from "./standby";
import { TEST_SECRET } from "./test-db";
import { waitFor } from "./test-wait";
import { connect } from "./client";
import { newJob, operator, seedTenants } from "../jobs/test-helpers";
import { transition } from "../jobs/transition";

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
  const s = postgres(dbUrl(standby.adminUrl), { max: 1, onnotice: () => {} });
  try {
    await waitFor(
      `the standby to replay up to ${lsn}`,
      async () => (await s<{ ok: boolean }[]>`SELECT pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn AS ok`)[0]?.ok,
    );
  } finally {
    await s.end();
  }
}

beforeAll(async () => {
  primary = await startEmbeddedPostgres({ dataDir: primaryDir, fresh: true });
  primaryUrl = await ensureDatabase(primary.adminUrl, "jobscope");
  await migrateDatabase(primaryUrl);
  await provisionRoles(primaryUrl, TEST_SECRET);
  const owner = connect(primaryUrl, { max: 2 });
  await seedTenants(owner);
  await owner.end();
  standby = await startStandby({ adminUrl: primary.adminUrl, dataDir: primaryDir }, standbyDir);
  standbyUrl = dbUrl(standby.adminUrl);
  // The console's own role on each: roles and their passwords are in the replicated catalogs.
  process.env.DATABASE_URL = roleUrl(primaryUrl, TEST_SECRET, "app");
  process.env.DATABASE_READ_URL = roleUrl(standbyUrl, TEST_SECRET, "app");
  await caughtUp(await primaryLsn(postgres(primaryUrl, { max: 1, onnotice: () => {} })));
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
    const s = postgres(standbyUrl, { max: 1, onnotice: () => {} });
    const owner = connect(primaryUrl, { max: 1 });
    try {
      const [r] = await s<{ recovering: boolean }[]>`SELECT pg_is_in_recovery() AS recovering`;
      expect(r!.recovering).toBe(true);
      const job = await newJob(owner);
      await caughtUp(await primaryLsn(owner));
      const [seen] = await s<{ n: number }[]>`SELECT count(*)::int AS n FROM job_catalog WHERE id = ${job.id}`;
      expect(seen!.n).toBe(1);
      await expect(s`CREATE TABLE nope (x int)`).rejects.toThrow(/read-only transaction/);
      expect((await readPool()`SELECT pg_is_in_recovery() AS r`)[0]!.r).toBe(true);
      expect((await pool()`SELECT pg_is_in_recovery() AS r`)[0]!.r).toBe(false);
    } finally {
      await s.end();
      await owner.end();
    }
  });

  it("reads a person's own change from the primary until the standby has replayed it", async () => {
    const superStandby = postgres(standbyUrl, { max: 1, onnotice: () => {} });
    const owner = connect(primaryUrl, { max: 1 });
    try {
      const job = await newJob(owner);
      await caughtUp(await primaryLsn(owner));
      // Hold the standby back, then change the job on the primary as an operator would.
      await superStandby`SELECT pg_wal_replay_pause()`;
      const r = await withScope(pool(), { all: true }, (tx) => transition(tx, { jobId: job.id, event: "cancel", actor: operator }));
      expect(r.ok).toBe(true);
      const lsn = await primaryLsn(pool());
      const stateOn = async (sql: ReturnType<typeof pool>) =>
        withScope(sql, { all: true }, async (tx) => (await tx<{ state: string }[]>`SELECT state FROM jobs WHERE id = ${job.id}`)[0]?.state);
      // The standby alone would show the page from before the change…
      expect(await stateOn(readPool())).toBe("queued");
      // …so the reads after it go to the primary while the standby lags,
      const afterWrite = await readPoolAfter(lsn);
      expect(afterWrite).toBe(pool());
      expect(await stateOn(afterWrite)).toBe("cancelled");
      // and back to the standby once it has replayed the change.
      await superStandby`SELECT pg_wal_replay_resume()`;
      await caughtUp(lsn);
      const later = await readPoolAfter(lsn);
      expect(later).toBe(readPool());
      expect(await stateOn(later)).toBe("cancelled");
      // A browser with no recent write of its own reads the standby without asking.
      expect(await readPoolAfter(null)).toBe(readPool());
    } finally {
      await superStandby`SELECT pg_wal_replay_resume()`.catch(() => {});
      await superStandby.end();
      await owner.end();
    }
  });
});

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { ensureDatabase } from "./embedded";
import { migrateDatabase } from "./migrate";
import { dailyPartitionName, ensureEventPartitions, listEventPartitions } from "./partitions";
import { withScope } from "./scope";
import { setupTestDb } from "./test-db";
import { waitFor } from "./test-wait";
import { History, OPERATOR } from "../demo/history";
import { transition } from "../jobs/transition";
import { api, newJob, runJob } from "../jobs/test-helpers";
import { createSupervisor } from "../supervisor/supervisor";
import { sql } from "drizzle-orm";
import { execute } from "./drizzle";
import { closeDb, connect } from "./client";

const DAY = 86_400_000;
const t = setupTestDb();
const app = t.connect({ role: "app", max: 2 });
const workerRole = t.connect({ role: "worker", max: 2 });

/** Which partition each of a job's job_log rows (its transitions no worker applied) sits in. */
const partitionsOf = async (jobId: string) =>
  (
    await execute<{ part: string }>(t.pool, sql`SELECT tableoid::regclass::text AS part FROM job_log WHERE job_id = ${jobId} ORDER BY state_version`)
  ).map((r) => r.part);
/** A job submitted at `at` and cancelled by an operator then: one job_log row, at `at`. */
const cancelledAt = async (at: Date, tenantId = "acme") =>
  (
    await new History(t.pool, at.getTime()).submit(
      { tenantId, type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue: "parts" },
      api,
    )
  ).step("cancel", 0, OPERATOR);

describe("job_log partitions", () => {
  it("the migrations leave daily partitions from the first of the month to a week ahead, and a DEFAULT, named after job_log", async () => {
    const parts = await listEventPartitions(t.pool);
    const today = new Date(new Date().toISOString().slice(0, 10) + "T00:00:00Z");
    const names = parts.map((p) => p.name);
    for (let d = 0; d <= 7; d++) expect(names).toContain(dailyPartitionName(new Date(today.getTime() + d * DAY)));
    expect(names.every((n) => n.startsWith("job_log_p") || n === "job_log_default")).toBe(true);
    expect(parts.at(-1)).toMatchObject({ name: "job_log_default", isDefault: true, from: null, to: null });
    const todays = parts.find((p) => p.name === dailyPartitionName(today))!;
    expect([todays.from, todays.to]).toEqual([today, new Date(today.getTime() + DAY)]);
  });

  it("a transition lands in its UTC day's partition; one far outside lands in DEFAULT; a worker's is on its attempt, not here", async () => {
    const job = await newJob(t.pool);
    await runJob(t.pool, job);
    expect(await partitionsOf(job.id)).toEqual([]);
    await transition(t.pool, { jobId: job.id, event: "cancel", actor: OPERATOR });
    expect(await partitionsOf(job.id)).toEqual([dailyPartitionName(new Date())]);
    const far = await cancelledAt(new Date(Date.now() + 3 * 365 * DAY));
    expect(await partitionsOf(far.id)).toEqual(["job_log_default"]);
    const past = await cancelledAt(new Date(Date.now() - 400 * DAY));
    expect(await partitionsOf(past.id)).toEqual(["job_log_default"]);
  });

  it("ensure-ahead is idempotent", async () => {
    const [{ n: before } = { n: 0 }] = await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM job_log`);
    expect(await ensureEventPartitions(t.pool, { daysAhead: 21 })).toBe(14);
    const after = await listEventPartitions(t.pool);
    expect(await ensureEventPartitions(t.pool, { daysAhead: 21 })).toBe(0);
    expect(await listEventPartitions(t.pool)).toEqual(after);
    const [{ n } = { n: 0 }] = await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM job_log`);
    expect(n).toBe(before);
    await expect(ensureEventPartitions(t.pool, { daysAhead: -1 })).rejects.toThrow(/daysAhead/);
    await expect(execute(t.pool, sql`SELECT jobscope_ensure_event_partitions(1000)`)).rejects.toThrow(/days_ahead/);
  });

  it("the worker role (the supervisor) may create partitions; the console's role may not; neither may drop or read one directly", async () => {
    expect(await ensureEventPartitions(workerRole, { daysAhead: 22 })).toBe(1);
    const owner = await execute<{ owner: string }>(
      t.pool,
      sql`SELECT pg_get_userbyid(relowner) AS owner FROM pg_class WHERE relname = ${dailyPartitionName(new Date(Date.now() + 22 * DAY))}`,
    );
    expect(owner[0]?.owner).not.toMatch(/^jobscope_/);
    await expect(ensureEventPartitions(app, { daysAhead: 23 })).rejects.toThrow(/permission denied/);
    const today = dailyPartitionName(new Date());
    for (const role of [app, workerRole]) {
      await expect(execute(role, sql`DROP TABLE ${sql.identifier(today)}`)).rejects.toThrow(/must be owner/);
      await expect(execute(role, sql`ALTER TABLE job_log DETACH PARTITION ${sql.identifier(today)}`)).rejects.toThrow(/must be owner/);
      await expect(execute(role, sql`SELECT count(*) FROM ${sql.identifier(today)}`)).rejects.toThrow(/permission denied/);
      await expect(execute(role, sql`SELECT count(*) FROM job_log_default`)).rejects.toThrow(/permission denied/);
      await expect(execute(role, sql`TRUNCATE job_log`)).rejects.toThrow(/permission denied/);
    }
    await expect(execute(app, sql`DELETE FROM job_log`)).rejects.toThrow(/permission denied/);
    // Nor the staff role a staff request switches to, for a partition created after its grants.
    const later = dailyPartitionName(new Date(Date.now() + 22 * DAY));
    await expect(withScope(app, { all: true }, (tx) => execute(tx, sql`SELECT count(*) FROM ${sql.identifier(later)}`))).rejects.toThrow(
      /permission denied/,
    );
    // The owner is held by the guards on the parent.
    await expect(execute(t.pool, sql`DELETE FROM job_log`)).rejects.toThrow(/append-only/);
    await expect(execute(t.pool, sql`UPDATE job_log SET actor_id = 'x'`)).rejects.toThrow(/append-only/);
  });

  it("the running supervisor (worker role) recreates a missing day ahead", async () => {
    const ahead = dailyPartitionName(new Date(Date.now() + 7 * DAY));
    await execute(t.pool, sql.raw(`DROP TABLE ${ahead}`));
    const lines: string[] = [];
    const sup = createSupervisor({ db: workerRole, intervalMs: 50, log: (l) => lines.push(l) });
    sup.start();
    try {
      await waitFor("the supervisor to create the missing day", () => lines.some((l) => /^created 1 job_\w+ partition\(s\)$/.test(l)));
    } finally {
      await sup.stop();
    }
    expect((await listEventPartitions(t.pool)).map((p) => p.name)).toContain(ahead);
  });

  it("row-level security still filters job_log rows per tenant through the parent", async () => {
    const acme = await cancelledAt(new Date(), "acme");
    const globex = await cancelledAt(new Date(), "globex");
    const seen = await withScope(app, { tenantId: "acme" }, (tx) =>
      execute<{ jobId: string }>(tx, sql`SELECT DISTINCT job_id FROM job_log WHERE job_id IN (${acme.id}, ${globex.id})`),
    );
    expect(seen.map((r) => r.jobId)).toEqual([acme.id]);
    const [none] = await execute<{ n: number }>(app, sql`SELECT count(*)::int AS n FROM job_log`);
    expect(none?.n).toBe(0);
    const [all] = await withScope(app, { all: true }, (tx) =>
      execute<{ n: number }>(tx, sql`SELECT count(*)::int AS n FROM job_log WHERE job_id IN (${acme.id}, ${globex.id})`),
    );
    expect(all?.n).toBe(2);
    const policies = await execute<{ policyname: string }>(t.pool, sql`SELECT policyname FROM pg_policies WHERE tablename = 'job_log' ORDER BY 1`);
    expect(policies.map((p) => p.policyname)).toEqual(["app_scope", "owner_all", "staff_all", "worker_all"]);
    const [rls] = await execute<{ on: boolean; forced: boolean }>(
      t.pool,
      sql`SELECT relrowsecurity AS on, relforcerowsecurity AS forced FROM pg_class WHERE oid = 'job_log'::regclass`,
    );
    expect(rls).toEqual({ on: true, forced: true });
  });
});

// What 0009 guaranteed of the partitions and 0012 must keep; each on a database of its own, so
// that a failure leaves nothing behind for the tests above.
describe("job_log partitions: moving rows out of DEFAULT, and the guards on each partition", () => {
  const own = setupTestDb();

  it("ensure-ahead moves a day's rows already in DEFAULT into the day's new partition", async () => {
    const at = new Date(Date.now() + 20 * DAY);
    const early = await new History(own.pool, at.getTime()).submit(
      { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } },
      api,
    );
    await early.step("cancel", 0, OPERATOR);
    const where = async () =>
      (await execute<{ part: string }>(own.pool, sql`SELECT tableoid::regclass::text AS part FROM job_log WHERE job_id = ${early.id}`)).map(
        (r) => r.part,
      );
    expect(await where()).toEqual(["job_log_default"]);
    expect(await ensureEventPartitions(own.pool, { daysAhead: 21 })).toBe(14);
    expect(await where()).toEqual([dailyPartitionName(at)]);
  });

  it("the owner cannot delete or update a partition's rows directly, only through retention", async () => {
    const job = await newJob(own.pool);
    await transition(own.pool, { jobId: job.id, event: "cancel", actor: OPERATOR });
    const today = dailyPartitionName(new Date());
    await expect(execute(own.pool, sql`DELETE FROM ${sql.identifier(today)}`)).rejects.toThrow(/append-only/);
    await expect(execute(own.pool, sql`UPDATE ${sql.identifier(today)} SET actor_id = 'x'`)).rejects.toThrow(/append-only/);
  });
});

/** Run the migrations before journal entry `upTo` (by index) from a copy of drizzle/. */
async function migrateUpTo(url: string, upTo: number) {
  const dir = mkdtempSync(path.join(tmpdir(), "jobscope-mig-"));
  try {
    cpSync(path.resolve("drizzle"), dir, { recursive: true });
    const journalPath = path.join(dir, "meta/_journal.json");
    const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { idx: number }[] };
    journal.entries = journal.entries.filter((e) => e.idx < upTo);
    writeFileSync(journalPath, JSON.stringify(journal));
    await migrateDatabase(url, { migrationsFolder: dir });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("migrations 0009 and 0012 on a database that already has events", () => {
  it("0009 keeps every row, its id and its time, in the partition of its month or day; 0012 renames the partitions after job_log and keeps the rows no worker wrote", async () => {
    const adminUrl = inject("templateAdminUrl");
    const name = `t_mig_${randomBytes(4).toString("hex")}`;
    const url = await ensureDatabase(adminUrl, name);
    const db = connect(url, { max: 1 });
    try {
      await migrateUpTo(url, 9);
      const now = Date.now();
      const times = [now - 70 * DAY, now - 40 * DAY, now - 2 * DAY, now, now + 3 * DAY, now + 500 * DAY].map((ms) => new Date(ms));
      await db.transaction(async (tx) => {
        await execute(tx, sql`SET LOCAL session_replication_role = replica`);
        await execute(tx, sql`INSERT INTO tenants (id, name) VALUES ('acme', 'ACME')`);
        // Each job submitted and cancelled by an operator a second later.
        for (const at of times) {
          const cancelAt = new Date(at.getTime() + 1000);
          const [job] = await execute<{ id: string }>(
            tx,
            sql`
            INSERT INTO jobs (tenant_id, type, state, state_version, max_attempts, created_at, updated_at, finished_at)
            VALUES ('acme', 'report.generate', 'cancelled', 1, 3, ${at}, ${cancelAt}, ${cancelAt}) RETURNING id`,
          );
          await execute(
            tx,
            sql`
            INSERT INTO job_events (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, payload)
            VALUES (${job!.id}, 'acme', 'submit', NULL, 'queued', 'api', 'test', 0, 0, ${at}, '{"maxAttempts":3}'),
                   (${job!.id}, 'acme', 'cancel', 'queued', 'cancelled', 'operator', 'op', 0, 1, ${cancelAt}, NULL)`,
          );
        }
      });
      const before = await execute<{ id: string; at: Date }>(db, sql`SELECT id, at FROM job_events ORDER BY id`);
      expect(before).toHaveLength(12);

      await migrateUpTo(url, 12);

      const after = await execute<{ id: string; at: Date; part: string }>(
        db,
        sql`SELECT id, at, tableoid::regclass::text AS part FROM job_events ORDER BY id`,
      );
      expect(after.map(({ id, at }) => ({ id, at }))).toEqual(before);
      const month = (d: Date) => `p${d.toISOString().slice(0, 7).replace("-", "")}`;
      const day = (d: Date) => `p${d.toISOString().slice(0, 10).replaceAll("-", "")}`;
      const thisMonth = month(new Date(now));
      const expected = (prefix: string) => (d: Date, i: number) =>
        `${prefix}_${i === 5 ? "default" : month(d) === thisMonth || d.getTime() > now ? day(d) : month(d)}`;
      // Two rows per job, in the order of the jobs.
      expect(after.map((r) => r.part)).toEqual(after.map((r, k) => expected("job_events")(r.at, Math.floor(k / 2))));
      const [next] = await execute<{ id: string }>(
        db,
        sql`
        INSERT INTO job_events (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version)
        VALUES (gen_random_uuid(), 'acme', 'submit', NULL, 'queued', 'api', 'test', 0, 0) RETURNING id`,
      );
      expect(BigInt(next!.id)).toBeGreaterThan(BigInt(before.at(-1)!.id));
      expect((await execute(db, sql`SELECT 1 FROM pg_class WHERE relname = 'job_events_old'`)).length).toBe(0);

      await migrateDatabase(url);

      // The submits are the catalog's rows now; the cancels stay in job_log, each in its partition, renamed.
      const log = await execute<{ at: Date; part: string }>(db, sql`SELECT at, tableoid::regclass::text AS part FROM job_log ORDER BY at`);
      expect(log.map((r) => r.part)).toEqual(times.map((d, i) => expected("job_log")(new Date(d.getTime() + 1000), i)));
      expect((await execute<{ createdAt: Date }>(db, sql`SELECT created_at FROM job_catalog ORDER BY created_at`)).map((r) => r.createdAt)).toEqual(
        times,
      );
      expect(await execute(db, sql`SELECT relname FROM pg_class WHERE relname LIKE 'job\_events\_%'`)).toEqual([]);
      expect(await execute(db, sql`SELECT name FROM jobscope_event_partitions() WHERE is_default`)).toEqual([{ name: "job_log_default" }]);
    } finally {
      await closeDb(db);
      const admin = connect(adminUrl, { max: 1 });
      await execute(admin, sql.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
      await closeDb(admin);
    }
  });
});

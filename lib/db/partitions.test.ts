import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
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

const DAY = 86_400_000;
const t = setupTestDb();
const app = t.connect({ role: "app", max: 2 });
const workerRole = t.connect({ role: "worker", max: 2 });

/** Which partition each of a job's job_log rows (its transitions no worker applied) sits in. */
const partitionsOf = async (jobId: string) =>
  (await t.sql<{ part: string }[]>`SELECT tableoid::regclass::text AS part FROM job_log WHERE job_id = ${jobId} ORDER BY state_version`).map(
    (r) => r.part,
  );
/** A job submitted at `at` and cancelled by an operator then: one job_log row, at `at`. */
const cancelledAt = async (at: Date, tenantId = "acme") =>
  (
    await new History(t.sql, at.getTime()).submit(
      { tenantId, type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue: "parts" },
      api,
    )
  ).step("cancel", 0, OPERATOR);

describe("job_log partitions", () => {
  it("the migrations leave daily partitions from the first of the month to a week ahead, and a DEFAULT, named after job_log", async () => {
    const parts = await listEventPartitions(t.sql);
    const today = new Date(new Date().toISOString().slice(0, 10) + "T00:00:00Z");
    const names = parts.map((p) => p.name);
    for (let d = 0; d <= 7; d++) expect(names).toContain(dailyPartitionName(new Date(today.getTime() + d * DAY)));
    expect(names.every((n) => n.startsWith("job_log_p") || n === "job_log_default")).toBe(true);
    expect(parts.at(-1)).toMatchObject({ name: "job_log_default", isDefault: true, from: null, to: null });
    const todays = parts.find((p) => p.name === dailyPartitionName(today))!;
    expect([todays.from, todays.to]).toEqual([today, new Date(today.getTime() + DAY)]);
  });

  it("a transition lands in its UTC day's partition; one far outside lands in DEFAULT; a worker's is on its attempt, not here", async () => {
    const job = await newJob(t.sql);
    await runJob(t.sql, job);
    expect(await partitionsOf(job.id)).toEqual([]);
    await transition(t.sql, { jobId: job.id, event: "cancel", actor: OPERATOR });
    expect(await partitionsOf(job.id)).toEqual([dailyPartitionName(new Date())]);
    const far = await cancelledAt(new Date(Date.now() + 3 * 365 * DAY));
    expect(await partitionsOf(far.id)).toEqual(["job_log_default"]);
    const past = await cancelledAt(new Date(Date.now() - 400 * DAY));
    expect(await partitionsOf(past.id)).toEqual(["job_log_default"]);
  });

  it("ensure-ahead is idempotent", async () => {
    const [{ n: before } = { n: 0 }] = await t.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM job_log`;
    expect(await ensureEventPartitions(t.sql, { daysAhead: 21 })).toBe(14);
    const after = await listEventPartitions(t.sql);
    expect(await ensureEventPartitions(t.sql, { daysAhead: 21 })).toBe(0);
    expect(await listEventPartitions(t.sql)).toEqual(after);
    const [{ n } = { n: 0 }] = await t.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM job_log`;
    expect(n).toBe(before);
    await expect(ensureEventPartitions(t.sql, { daysAhead: -1 })).rejects.toThrow(/daysAhead/);
    await expect(t.sql`SELECT jobscope_ensure_event_partitions(1000)`).rejects.toThrow(/days_ahead/);
  });

  it("the worker role (the supervisor) may create partitions; the console's role may not; neither may drop or read one directly", async () => {
    expect(await ensureEventPartitions(workerRole, { daysAhead: 22 })).toBe(1);
    const owner = await t.sql<
      { owner: string }[]
    >`SELECT pg_get_userbyid(relowner) AS owner FROM pg_class WHERE relname = ${dailyPartitionName(new Date(Date.now() + 22 * DAY))}`;
    expect(owner[0]?.owner).not.toMatch(/^jobscope_/);
    await expect(ensureEventPartitions(app, { daysAhead: 23 })).rejects.toThrow(/permission denied/);
    const today = dailyPartitionName(new Date());
    for (const role of [app, workerRole]) {
      await expect(role.unsafe(`DROP TABLE ${today}`)).rejects.toThrow(/must be owner/);
      await expect(role.unsafe(`ALTER TABLE job_log DETACH PARTITION ${today}`)).rejects.toThrow(/must be owner/);
      await expect(role.unsafe(`SELECT count(*) FROM ${today}`)).rejects.toThrow(/permission denied/);
      await expect(role.unsafe(`SELECT count(*) FROM job_log_default`)).rejects.toThrow(/permission denied/);
      await expect(role`TRUNCATE job_log`).rejects.toThrow(/permission denied/);
    }
    await expect(app`DELETE FROM job_log`).rejects.toThrow(/permission denied/);
    // Nor the staff role a staff request switches to, for a partition created after its grants.
    const later = dailyPartitionName(new Date(Date.now() + 22 * DAY));
    await expect(withScope(app, { all: true }, (tx) => tx.unsafe(`SELECT count(*) FROM ${later}`))).rejects.toThrow(/permission denied/);
    // The owner is held by the guards on the parent.
    await expect(t.sql`DELETE FROM job_log`).rejects.toThrow(/append-only/);
    await expect(t.sql`UPDATE job_log SET actor_id = 'x'`).rejects.toThrow(/append-only/);
  });

  it("the running supervisor (worker role) recreates a missing day ahead", async () => {
    const ahead = dailyPartitionName(new Date(Date.now() + 7 * DAY));
    await t.sql.unsafe(`DROP TABLE ${ahead}`);
    const lines: string[] = [];
    const sup = createSupervisor({ sql: workerRole, intervalMs: 50, log: (l) => lines.push(l) });
    sup.start();
    try {
      await waitFor("the supervisor to create the missing day", () => lines.some((l) => /^created 1 job_\w+ partition\(s\)$/.test(l)));
    } finally {
      await sup.stop();
    }
    expect((await listEventPartitions(t.sql)).map((p) => p.name)).toContain(ahead);
  });

  it("row-level security still filters job_log rows per tenant through the parent", async () => {
    const acme = await cancelledAt(new Date(), "acme");
    const globex = await cancelledAt(new Date(), "globex");
    const seen = await withScope(
      app,
      { tenantId: "acme" },
      (tx) => tx<{ jobId: string }[]>`SELECT DISTINCT job_id FROM job_log WHERE job_id IN (${acme.id}, ${globex.id})`,
    );
    expect(seen.map((r) => r.jobId)).toEqual([acme.id]);
    const [none] = await app<{ n: number }[]>`SELECT count(*)::int AS n FROM job_log`;
    expect(none?.n).toBe(0);
    const [all] = await withScope(
      app,
      { all: true },
      (tx) => tx<{ n: number }[]>`SELECT count(*)::int AS n FROM job_log WHERE job_id IN (${acme.id}, ${globex.id})`,
    );
    expect(all?.n).toBe(2);
    const policies = await t.sql<{ policyname: string }[]>`SELECT policyname FROM pg_policies WHERE tablename = 'job_log' ORDER BY 1`;
    expect(policies.map((p) => p.policyname)).toEqual(["app_scope", "owner_all", "staff_all", "worker_all"]);
    const [rls] = await t.sql<
      { on: boolean; forced: boolean }[]
    >`SELECT relrowsecurity AS on, relforcerowsecurity AS forced FROM pg_class WHERE oid = 'job_log'::regclass`;
    expect(rls).toEqual({ on: true, forced: true });
  });
});

// What 0009 guaranteed of the partitions and 0012 must keep; each on a database of its own, so
// that a failure leaves nothing behind for the tests above.
describe("job_log partitions: moving rows out of DEFAULT, and the guards on each partition", () => {
  const own = setupTestDb();

  it("ensure-ahead moves a day's rows already in DEFAULT into the day's new partition", async () => {
    const at = new Date(Date.now() + 20 * DAY);
    const early = await new History(own.sql, at.getTime()).submit(
      { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } },
      api,
    );
    await early.step("cancel", 0, OPERATOR);
    const where = async () =>
      (await own.sql<{ part: string }[]>`SELECT tableoid::regclass::text AS part FROM job_log WHERE job_id = ${early.id}`).map((r) => r.part);
    expect(await where()).toEqual(["job_log_default"]);
    expect(await ensureEventPartitions(own.sql, { daysAhead: 21 })).toBe(14);
    expect(await where()).toEqual([dailyPartitionName(at)]);
  });

  it("the owner cannot delete or update a partition's rows directly, only through retention", async () => {
    const job = await newJob(own.sql);
    await transition(own.sql, { jobId: job.id, event: "cancel", actor: OPERATOR });
    const today = dailyPartitionName(new Date());
    await expect(own.sql.unsafe(`DELETE FROM ${today}`)).rejects.toThrow(/append-only/);
    await expect(own.sql.unsafe(`UPDATE ${today} SET actor_id = 'x'`)).rejects.toThrow(/append-only/);
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
    // drizzle's driver replaces its client's Date serializer: give it a client of its own.
    const forDrizzle = postgres(url, { max: 1, onnotice: () => {} });
    await migrate(drizzle(forDrizzle), { migrationsFolder: dir }).finally(() => forDrizzle.end());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("migrations 0009 and 0012 on a database that already has events", () => {
  it("0009 keeps every row, its id and its time, in the partition of its month or day; 0012 renames the partitions after job_log and keeps the rows no worker wrote", async () => {
    const adminUrl = inject("templateAdminUrl");
    const name = `t_mig_${randomBytes(4).toString("hex")}`;
    const url = await ensureDatabase(adminUrl, name);
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migrateUpTo(url, 9);
      const now = Date.now();
      const times = [now - 70 * DAY, now - 40 * DAY, now - 2 * DAY, now, now + 3 * DAY, now + 500 * DAY].map((ms) => new Date(ms));
      await sql.begin(async (tx) => {
        await tx`SET LOCAL session_replication_role = replica`;
        await tx`INSERT INTO tenants (id, name) VALUES ('acme', 'ACME')`;
        // Each job submitted and cancelled by an operator a second later.
        for (const at of times) {
          const cancelAt = new Date(at.getTime() + 1000);
          const [job] = await tx<{ id: string }[]>`
            INSERT INTO jobs (tenant_id, type, state, state_version, max_attempts, created_at, updated_at, finished_at)
            VALUES ('acme', 'report.generate', 'cancelled', 1, 3, ${at}, ${cancelAt}, ${cancelAt}) RETURNING id`;
          await tx`
            INSERT INTO job_events (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, payload)
            VALUES (${job!.id}, 'acme', 'submit', NULL, 'queued', 'api', 'test', 0, 0, ${at}, '{"maxAttempts":3}'),
                   (${job!.id}, 'acme', 'cancel', 'queued', 'cancelled', 'operator', 'op', 0, 1, ${cancelAt}, NULL)`;
        }
      });
      const before = await sql<{ id: string; at: Date }[]>`SELECT id, at FROM job_events ORDER BY id`;
      expect(before).toHaveLength(12);

      await migrateUpTo(url, 12);

      const after = await sql<{ id: string; at: Date; part: string }[]>`SELECT id, at, tableoid::regclass::text AS part FROM job_events ORDER BY id`;
      expect(after.map(({ id, at }) => ({ id, at }))).toEqual(before);
      const month = (d: Date) => `p${d.toISOString().slice(0, 7).replace("-", "")}`;
      const day = (d: Date) => `p${d.toISOString().slice(0, 10).replaceAll("-", "")}`;
      const thisMonth = month(new Date(now));
      const expected = (prefix: string) => (d: Date, i: number) =>
        `${prefix}_${i === 5 ? "default" : month(d) === thisMonth || d.getTime() > now ? day(d) : month(d)}`;
      // Two rows per job, in the order of the jobs.
      expect(after.map((r) => r.part)).toEqual(after.map((r, k) => expected("job_events")(r.at, Math.floor(k / 2))));
      const [next] = await sql<{ id: string }[]>`
        INSERT INTO job_events (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version)
        VALUES (gen_random_uuid(), 'acme', 'submit', NULL, 'queued', 'api', 'test', 0, 0) RETURNING id`;
      expect(BigInt(next!.id)).toBeGreaterThan(BigInt(before.at(-1)!.id));
      expect((await sql`SELECT 1 FROM pg_class WHERE relname = 'job_events_old'`).length).toBe(0);

      await migrateDatabase(url);

      // The submits are the catalog's rows now; the cancels stay in job_log, each in its partition, renamed.
      const log = await sql<{ at: Date; part: string }[]>`SELECT at, tableoid::regclass::text AS part FROM job_log ORDER BY at`;
      expect(log.map((r) => r.part)).toEqual(times.map((d, i) => expected("job_log")(new Date(d.getTime() + 1000), i)));
      expect((await sql<{ created_at: Date }[]>`SELECT created_at FROM job_catalog ORDER BY created_at`).map((r) => r.created_at)).toEqual(times);
      expect(await sql`SELECT relname FROM pg_class WHERE relname LIKE 'job\_events\_%'`).toEqual([]);
      expect(await sql`SELECT name FROM jobscope_event_partitions() WHERE is_default`).toEqual([{ name: "job_log_default" }]);
    } finally {
      await sql.end();
      const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { connect, type Sql } from "./client";
import { ensureDatabase } from "./embedded";
import { migrateDatabase } from "./migrate";
import { dailyPartitionName, ensureEventPartitions, listEventPartitions } from "./partitions";
import { withScope } from "./scope";
import { createTestDb, type TestDb } from "./test-db";
import { enqueue } from "../jobs/enqueue";
import { api, newJob, runJob, seedTenants } from "../jobs/test-helpers";
import { createSupervisor } from "../supervisor/supervisor";

const DAY = 86_400_000;
let t: TestDb;
let app: Sql;
let workerRole: Sql;

beforeAll(async () => {
  t = await createTestDb();
  app = connect(t.roleUrl("app"), { max: 2 });
  workerRole = connect(t.roleUrl("worker"), { max: 2 });
  await seedTenants(t.sql);
});
afterAll(async () => {
  await app?.end({ timeout: 5 });
  await workerRole?.end({ timeout: 5 });
  await t?.close();
});

/** Which partition each of a job's events sits in. */
const partitionsOf = async (jobId: string) =>
  (await t.sql<{ part: string }[]>`SELECT tableoid::regclass::text AS part FROM job_events WHERE job_id = ${jobId} ORDER BY state_version`).map((r) => r.part);
const enqueueAt = (at: Date, tenantId = "acme") =>
  enqueue(t.sql, { tenantId, type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue: "parts" }, api, { at }).then((r) => r.job);

describe("job_events partitions", () => {
  it("the migration leaves daily partitions from the first of the month to a week ahead, and a DEFAULT", async () => {
    const parts = await listEventPartitions(t.sql);
    const today = new Date(new Date().toISOString().slice(0, 10) + "T00:00:00Z");
    const names = parts.map((p) => p.name);
    for (let d = 0; d <= 7; d++) expect(names).toContain(dailyPartitionName(new Date(today.getTime() + d * DAY)));
    expect(parts.at(-1)).toMatchObject({ name: "job_events_default", isDefault: true, from: null, to: null });
    const todays = parts.find((p) => p.name === dailyPartitionName(today))!;
    expect([todays.from, todays.to]).toEqual([today, new Date(today.getTime() + DAY)]);
  });

  it("an event lands in its UTC day's partition; one far outside lands in DEFAULT", async () => {
    const job = await newJob(t.sql);
    await runJob(t.sql, job);
    const today = dailyPartitionName(new Date());
    expect(await partitionsOf(job.id)).toEqual([today, today, today]);
    const far = await enqueueAt(new Date(Date.now() + 3 * 365 * DAY));
    expect(await partitionsOf(far.id)).toEqual(["job_events_default"]);
    const past = await enqueueAt(new Date(Date.now() - 400 * DAY));
    expect(await partitionsOf(past.id)).toEqual(["job_events_default"]);
  });

  it("ensure-ahead is idempotent, and moves a day's rows already in DEFAULT into the day's new partition", async () => {
    const at = new Date(Date.now() + 20 * DAY);
    const early = await enqueueAt(at);
    expect(await partitionsOf(early.id)).toEqual(["job_events_default"]);
    const [{ n: before } = { n: 0 }] = await t.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM job_events`;
    expect(await ensureEventPartitions(t.sql, { daysAhead: 21 })).toBe(14);
    expect(await partitionsOf(early.id)).toEqual([dailyPartitionName(at)]);
    const after = await listEventPartitions(t.sql);
    expect(await ensureEventPartitions(t.sql, { daysAhead: 21 })).toBe(0);
    expect(await listEventPartitions(t.sql)).toEqual(after);
    const [{ n } = { n: 0 }] = await t.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM job_events`;
    expect(n).toBe(before);
    await expect(ensureEventPartitions(t.sql, { daysAhead: -1 })).rejects.toThrow(/daysAhead/);
    await expect(t.sql`SELECT jobscope_ensure_event_partitions(1000)`).rejects.toThrow(/days_ahead/);
  });

  it("the worker role (the supervisor) may create partitions; the console's role may not; neither may drop or read one directly", async () => {
    expect(await ensureEventPartitions(workerRole, { daysAhead: 22 })).toBe(1);
    const owner = await t.sql<{ owner: string }[]>`SELECT pg_get_userbyid(relowner) AS owner FROM pg_class WHERE relname = ${dailyPartitionName(new Date(Date.now() + 22 * DAY))}`;
    expect(owner[0]?.owner).not.toMatch(/^jobscope_/);
    await expect(ensureEventPartitions(app, { daysAhead: 23 })).rejects.toThrow(/permission denied/);
    const today = dailyPartitionName(new Date());
    for (const role of [app, workerRole]) {
      await expect(role.unsafe(`DROP TABLE ${today}`)).rejects.toThrow(/must be owner/);
      await expect(role.unsafe(`ALTER TABLE job_events DETACH PARTITION ${today}`)).rejects.toThrow(/must be owner/);
      await expect(role.unsafe(`SELECT count(*) FROM ${today}`)).rejects.toThrow(/permission denied/);
      await expect(role.unsafe(`SELECT count(*) FROM job_events_default`)).rejects.toThrow(/permission denied/);
      await expect(role`TRUNCATE job_events`).rejects.toThrow(/permission denied/);
    }
    await expect(app`DELETE FROM job_events`).rejects.toThrow(/permission denied/);
    // Nor the staff role a staff request switches to, for a partition created after its grants.
    const later = dailyPartitionName(new Date(Date.now() + 22 * DAY));
    await expect(withScope(app, { all: true }, (tx) => tx.unsafe(`SELECT count(*) FROM ${later}`))).rejects.toThrow(/permission denied/);
    // The owner is held by the guards, cloned onto every partition.
    await expect(t.sql.unsafe(`DELETE FROM ${today}`)).rejects.toThrow(/append-only/);
    await expect(t.sql.unsafe(`UPDATE ${today} SET actor_id = 'x'`)).rejects.toThrow(/append-only/);
  });

  it("the running supervisor (worker role) recreates a missing day ahead", async () => {
    const ahead = dailyPartitionName(new Date(Date.now() + 7 * DAY));
    await t.sql.unsafe(`DROP TABLE ${ahead}`);
    const lines: string[] = [];
    const sup = createSupervisor({ sql: workerRole, intervalMs: 50, log: (l) => lines.push(l) });
    sup.start();
    await new Promise((r) => setTimeout(r, 300));
    await sup.stop();
    expect(lines).toContain("created 1 job_events partition(s)");
    expect((await listEventPartitions(t.sql)).map((p) => p.name)).toContain(ahead);
  });

  it("row-level security still filters events per tenant through the parent", async () => {
    const acme = await newJob(t.sql, { tenantId: "acme" });
    const globex = await newJob(t.sql, { tenantId: "globex" });
    const seen = await withScope(app, { tenantId: "acme" }, (tx) =>
      tx<{ jobId: string }[]>`SELECT DISTINCT job_id FROM job_events WHERE job_id IN (${acme.id}, ${globex.id})`);
    expect(seen.map((r) => r.jobId)).toEqual([acme.id]);
    const [none] = await app<{ n: number }[]>`SELECT count(*)::int AS n FROM job_events`;
    expect(none?.n).toBe(0);
    const [all] = await withScope(app, { all: true }, (tx) => tx<{ n: number }[]>`SELECT count(*)::int AS n FROM job_events WHERE job_id IN (${acme.id}, ${globex.id})`);
    expect(all?.n).toBe(2);
    const policies = await t.sql<{ policyname: string }[]>`SELECT policyname FROM pg_policies WHERE tablename = 'job_events' ORDER BY 1`;
    expect(policies.map((p) => p.policyname)).toEqual(["app_scope", "owner_all", "staff_all", "worker_all"]);
    const [rls] = await t.sql<{ on: boolean; forced: boolean }[]>`SELECT relrowsecurity AS on, relforcerowsecurity AS forced FROM pg_class WHERE oid = 'job_events'::regclass`;
    expect(rls).toEqual({ on: true, forced: true });
  });
});

describe("migration 0009 on a database that already has events", () => {
  it("keeps every row, its id and its time, in the partition of its month or day, and the sequence continues", async () => {
    const adminUrl = inject("templateAdminUrl");
    const name = `t_mig_${randomBytes(4).toString("hex")}`;
    const url = await ensureDatabase(adminUrl, name);
    const dir = mkdtempSync(path.join(tmpdir(), "jobscope-mig-"));
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      // Migrate up to 0008 only (later migrations too would mark 0009 as passed).
      cpSync(path.resolve("drizzle"), dir, { recursive: true });
      const journalPath = path.join(dir, "meta/_journal.json");
      const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { idx: number }[] };
      journal.entries = journal.entries.filter((e) => e.idx < 9);
      writeFileSync(journalPath, JSON.stringify(journal));
      // drizzle's driver replaces its client's Date serializer: give it a client of its own.
      const forDrizzle = postgres(url, { max: 1, onnotice: () => {} });
      await migrate(drizzle(forDrizzle), { migrationsFolder: dir }).finally(() => forDrizzle.end());

      const now = Date.now();
      const times = [now - 70 * DAY, now - 40 * DAY, now - 2 * DAY, now, now + 3 * DAY, now + 500 * DAY].map((ms) => new Date(ms));
      await sql.begin(async (tx) => {
        await tx`SET LOCAL session_replication_role = replica`;
        await tx`INSERT INTO tenants (id, name) VALUES ('acme', 'ACME')`;
        for (const at of times) {
          const [job] = await tx<{ id: string }[]>`
            INSERT INTO jobs (tenant_id, type, max_attempts, created_at) VALUES ('acme', 'report.generate', 3, ${at}) RETURNING id`;
          await tx`
            INSERT INTO job_events (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at)
            OVERRIDING SYSTEM VALUE VALUES (${job!.id}, 'acme', 'submit', NULL, 'queued', 'api', 'test', 0, 0, ${at}) RETURNING id`;
        }
      });
      const before = await sql<{ id: string; at: Date }[]>`SELECT id, at FROM job_events ORDER BY id`;
      expect(before).toHaveLength(6);

      await migrateDatabase(url);

      const after = await sql<{ id: string; at: Date; part: string }[]>`SELECT id, at, tableoid::regclass::text AS part FROM job_events ORDER BY id`;
      expect(after.map(({ id, at }) => ({ id, at }))).toEqual(before);
      const month = (d: Date) => `job_events_p${d.toISOString().slice(0, 7).replace("-", "")}`;
      const thisMonth = month(new Date(now));
      const expected = times.map((d, i) =>
        i === 5 ? "job_events_default" : month(d) === thisMonth || d.getTime() > now ? dailyPartitionName(d) : month(d),
      );
      expect(after.map((r) => r.part)).toEqual(expected);
      const [next] = await sql<{ id: string }[]>`
        INSERT INTO job_events (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version)
        VALUES (gen_random_uuid(), 'acme', 'submit', NULL, 'queued', 'api', 'test', 0, 0) RETURNING id`;
      expect(BigInt(next!.id)).toBeGreaterThan(BigInt(before.at(-1)!.id));
      expect((await sql`SELECT 1 FROM pg_class WHERE relname = 'job_events_old'`).length).toBe(0);
    } finally {
      await sql.end();
      rmSync(dir, { recursive: true, force: true });
      const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});

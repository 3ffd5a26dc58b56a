import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { randomBytes } from "node:crypto";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { checkJobs } from "../integrity/check";
import { connect } from "./client";
import { ensureDatabase } from "./embedded";
import { migrateDatabase } from "./migrate";

/**
 * Migration 0012 (the narrow hot path) on a database filled by the code before it: the fixture is
 * what the demo seeder of commit faedbee wrote through that code's write path (500 histories ending
 * in every state), plus a job in each live state with an open attempt, a released claim, a dead job
 * replayed and finished, and an idempotency key; exported table by table as JSON.
 * After the migration the read model must give back exactly the rows, run records and events the
 * old tables held, and the integrity check must replay every job to its row.
 */
type Dump = Record<"tenants" | "jobs" | "job_runs" | "job_events" | "transition_rejections", Record<string, unknown>[]>;
const dump = JSON.parse(gunzipSync(readFileSync(path.join(__dirname, "fixtures/pre-0012.json.gz"))).toString()) as Dump;

const adminUrl = () => inject("templateAdminUrl");
const name = `t_mig12_${randomBytes(4).toString("hex")}`;
let url = "";
let before: { jobs: unknown[]; runs: unknown[]; events: unknown[] };
let migrationMs = 0;

// The same columns before and after, in one order; times as ISO strings, JSON as parsed.
const JOB = `id, tenant_id, type, queue, priority, state::text, attempt, max_attempts, state_version, lease_owner, heartbeat_at, not_before, params,
             idempotency_key, created_at, updated_at, finished_at`;
const RUN = `job_id, attempt, tenant_id, worker_id, claimed_at, started_at, finished_at, outcome::text, error_class, error_message, result`;
const EVENT = `job_id, tenant_id, event::text, from_state::text, to_state::text, actor_kind::text, actor_id, attempt, state_version, at, payload`;

beforeAll(async () => {
  url = await ensureDatabase(adminUrl(), name);
  const dir = mkdtempSync(path.join(tmpdir(), "jobscope-mig12-"));
  try {
    // Migrate up to 0011 only (a later migration would mark 0012 as passed).
    cpSync(path.resolve("drizzle"), dir, { recursive: true });
    const journalPath = path.join(dir, "meta/_journal.json");
    const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { idx: number }[] };
    journal.entries = journal.entries.filter((e) => e.idx < 12);
    writeFileSync(journalPath, JSON.stringify(journal));
    // drizzle's driver replaces its client's serializers: give it a client of its own.
    const forDrizzle = postgres(url, { max: 1, onnotice: () => {} });
    await migrate(drizzle(forDrizzle), { migrationsFolder: dir }).finally(() => forDrizzle.end());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // The old rows as they were, past the old guards (they were written through them once).
    await sql.begin(async (tx) => {
      await tx`SET LOCAL session_replication_role = replica`;
      for (const table of ["tenants", "jobs", "job_runs", "transition_rejections"] as const) {
        await tx.unsafe(`INSERT INTO ${table} OVERRIDING SYSTEM VALUE SELECT * FROM jsonb_populate_recordset(NULL::${table}, $1::text::jsonb)`, [
          JSON.stringify(dump[table]),
        ]);
      }
      await tx.unsafe(`INSERT INTO job_events OVERRIDING SYSTEM VALUE SELECT * FROM jsonb_populate_recordset(NULL::job_events, $1::text::jsonb)`, [
        JSON.stringify(dump.job_events),
      ]);
    });
    before = {
      jobs: await sql.unsafe(`SELECT ${JOB} FROM jobs ORDER BY id`),
      runs: await sql.unsafe(`SELECT ${RUN} FROM job_runs ORDER BY job_id, attempt`),
      events: await sql.unsafe(`SELECT ${EVENT} FROM job_events ORDER BY job_id, state_version`),
    };
  } finally {
    await sql.end();
  }
  const t0 = performance.now();
  await migrateDatabase(url);
  migrationMs = performance.now() - t0;
}, 180_000);

afterAll(async () => {
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
});

describe("migration 0012 on a database written by the code before it", () => {
  it("starts from every state, with runs and events", () => {
    const states = new Set((before.jobs as { state: string }[]).map((j) => j.state));
    expect([...states].sort()).toEqual(["cancelled", "cancelling", "claimed", "dead", "paused", "queued", "retry_wait", "running", "succeeded"]);
    expect(before.runs.length).toBeGreaterThan(before.jobs.length);
    expect(before.events.length).toBeGreaterThan(4 * before.jobs.length);
    console.log(
      `MIGRATION_0012 ${JSON.stringify({ jobs: before.jobs.length, runs: before.runs.length, events: before.events.length, ms: Math.round(migrationMs) })}`,
    );
  });

  it("gives back every job row, run record and event through the read model", async () => {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      // A finished job keeps no heartbeat: the old row's was the stale one of its last attempt.
      const finishedWithoutHeartbeat = (rows: readonly unknown[]) =>
        (rows as Record<string, unknown>[]).map((j) => (j.finished_at === null ? j : { ...j, heartbeat_at: null }));
      expect(finishedWithoutHeartbeat(await sql.unsafe(`SELECT ${JOB} FROM jobs ORDER BY id`))).toEqual(finishedWithoutHeartbeat(before.jobs));
      expect(await sql.unsafe(`SELECT ${RUN} FROM job_runs ORDER BY job_id, attempt`)).toEqual(before.runs);
      expect(await sql.unsafe(`SELECT ${EVENT} FROM job_events ORDER BY job_id, state_version`)).toEqual(before.events);
    } finally {
      await sql.end();
    }
  });

  it("stores the worker's transitions on attempts and live rows, the rest in job_log", async () => {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const [r] = await sql<{ worker: number; submit: number; live: number; attempts: number }[]>`
        SELECT (SELECT count(*) FROM job_log WHERE actor_kind = 'worker')::int AS worker,
               (SELECT count(*) FROM job_log WHERE event = 'submit')::int AS submit,
               (SELECT count(*) FROM jobs_live)::int AS live, (SELECT count(*) FROM job_attempts)::int AS attempts`;
      expect(r).toMatchObject({ worker: 0, submit: 0 });
      const open = (before.runs as { outcome: string | null }[]).filter((x) => x.outcome === null).length;
      expect(r!.attempts).toBe(before.runs.length - open);
      expect(r!.live).toBe((before.jobs as { finished_at: string | null }[]).filter((j) => j.finished_at === null).length);
    } finally {
      await sql.end();
    }
  });

  it("passes the integrity check for every job", async () => {
    const sql = connect(url, { max: 2 });
    try {
      const ids = (before.jobs as { id: string }[]).map((j) => j.id);
      const check = await checkJobs(sql, ids);
      expect(check.mismatches).toEqual([]);
      expect(check.jobs).toBe(ids.length);
    } finally {
      await sql.end();
    }
  });
});

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { checkJobs } from "../integrity/check";
import { closeDb, connect } from "./client";
import { ensureDatabase } from "./embedded";
import { migrateDatabase } from "./migrate";
import { sql } from "drizzle-orm";
import { execute } from "./drizzle";

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
    await migrateDatabase(url, { migrationsFolder: dir });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const db = connect(url, { max: 1 });
  try {
    // The old rows as they were, past the old guards (they were written through them once).
    await db.transaction(async (tx) => {
      await execute(tx, sql`SET LOCAL session_replication_role = replica`);
      for (const table of ["tenants", "jobs", "job_runs", "transition_rejections"] as const) {
        await execute(
          tx,
          sql`
          INSERT INTO ${sql.identifier(table)} OVERRIDING SYSTEM VALUE
          SELECT * FROM jsonb_populate_recordset(NULL::${sql.identifier(table)}, ${JSON.stringify(dump[table])}::text::jsonb)`,
        );
      }
      await execute(
        tx,
        sql`
        INSERT INTO job_events OVERRIDING SYSTEM VALUE
        SELECT * FROM jsonb_populate_recordset(NULL::job_events, ${JSON.stringify(dump.job_events)}::text::jsonb)`,
      );
    });
    before = {
      jobs: await execute(db, sql.raw(`SELECT ${JOB} FROM jobs ORDER BY id`)),
      runs: await execute(db, sql.raw(`SELECT ${RUN} FROM job_runs ORDER BY job_id, attempt`)),
      events: await execute(db, sql.raw(`SELECT ${EVENT} FROM job_events ORDER BY job_id, state_version`)),
    };
  } finally {
    await closeDb(db);
  }
  const t0 = performance.now();
  await migrateDatabase(url);
  migrationMs = performance.now() - t0;
}, 180_000);

afterAll(async () => {
  const admin = connect(adminUrl(), { max: 1 });
  await execute(admin, sql.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  await closeDb(admin);
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
    const db = connect(url, { max: 1 });
    try {
      // A finished job keeps no heartbeat: the old row's was the stale one of its last attempt.
      const finishedWithoutHeartbeat = (rows: readonly unknown[]) =>
        (rows as Record<string, unknown>[]).map((j) => (j.finishedAt === null ? j : { ...j, heartbeatAt: null }));
      expect(finishedWithoutHeartbeat(await execute(db, sql.raw(`SELECT ${JOB} FROM jobs ORDER BY id`)))).toEqual(
        finishedWithoutHeartbeat(before.jobs),
      );
      expect(await execute(db, sql.raw(`SELECT ${RUN} FROM job_runs ORDER BY job_id, attempt`))).toEqual(before.runs);
      expect(await execute(db, sql.raw(`SELECT ${EVENT} FROM job_events ORDER BY job_id, state_version`))).toEqual(before.events);
    } finally {
      await closeDb(db);
    }
  });

  it("stores the worker's transitions on attempts and live rows, the rest in job_log", async () => {
    const db = connect(url, { max: 1 });
    try {
      const [r] = await execute<{ worker: number; submit: number; live: number; attempts: number }>(
        db,
        sql`
        SELECT (SELECT count(*) FROM job_log WHERE actor_kind = 'worker')::int AS worker,
               (SELECT count(*) FROM job_log WHERE event = 'submit')::int AS submit,
               (SELECT count(*) FROM jobs_live)::int AS live, (SELECT count(*) FROM job_attempts)::int AS attempts`,
      );
      expect(r).toMatchObject({ worker: 0, submit: 0 });
      const open = (before.runs as { outcome: string | null }[]).filter((x) => x.outcome === null).length;
      expect(r!.attempts).toBe(before.runs.length - open);
      expect(r!.live).toBe((before.jobs as { finishedAt: Date | null }[]).filter((j) => j.finishedAt === null).length);
    } finally {
      await closeDb(db);
    }
  });

  it("passes the integrity check for every job", async () => {
    const db = connect(url, { max: 2 });
    try {
      const ids = (before.jobs as { id: string }[]).map((j) => j.id);
      const check = await checkJobs(db, ids);
      expect(check.mismatches).toEqual([]);
      expect(check.jobs).toBe(ids.length);
    } finally {
      await closeDb(db);
    }
  });
});

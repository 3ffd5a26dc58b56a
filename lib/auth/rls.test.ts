import { beforeAll, describe, expect, it } from "vitest";
import { closeDb, connect, type Db } from "../db/client";
import { withScope } from "../db/scope";
import { setupTestDb } from "../db/test-db";
import { enqueue } from "../jobs/enqueue";
import { api, getJob, newJob, operator, runJob, worker } from "../jobs/test-helpers";
import { transition } from "../jobs/transition";
import type { JobRow } from "../jobs/types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// The storage of job data (drizzle/0012_narrow_hot_path.sql); `jobs`, `job_runs` and `job_events` are views over
// them that run with the reader's rights (security_invoker), so these policies apply through them too.
const TENANT_TABLES = ["job_catalog", "jobs_live", "job_attempts", "job_log", "transition_rejections"] as const;

const db = setupTestDb();
const app = db.connect({ role: "app", max: 2 });
const workerRole = db.connect({ role: "worker", max: 2 });
let acmeJob: JobRow;
let globexJob: JobRow;

const count = (db: Db, table: string) =>
  execute<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM ${sql.identifier(table)}`).then((r) => r[0]!.n);

beforeAll(async () => {
  acmeJob = await newJob(db.pool, { tenantId: "acme" });
  globexJob = await newJob(db.pool, { tenantId: "globex" });
  // Give each job a run record, events and a rejection.
  for (const j of [acmeJob, globexJob]) {
    await runJob(db.pool, j);
    await transition(db.pool, { jobId: j.id, event: "start", actor: worker("w-1"), attempt: 1 }); // refused: already running
  }
});

describe("the database roles (catalog)", () => {
  it("the runtime roles are not superusers, cannot bypass RLS and own none of the tenant tables", async () => {
    const roles = await execute<{ rolname: string; rolsuper: boolean; rolbypassrls: boolean; rolcanlogin: boolean }>(
      db.pool,
      sql`
      SELECT rolname, rolsuper, rolbypassrls, rolcanlogin FROM pg_roles WHERE rolname IN ('jobscope_app', 'jobscope_worker') ORDER BY rolname`,
    );
    expect(roles).toEqual([
      { rolname: "jobscope_app", rolsuper: false, rolbypassrls: false, rolcanlogin: true },
      { rolname: "jobscope_worker", rolsuper: false, rolbypassrls: false, rolcanlogin: true },
    ]);
    const owners = await execute<{ relname: string; owner: string }>(
      db.pool,
      sql`
      SELECT c.relname, pg_get_userbyid(c.relowner) AS owner FROM pg_class c
       WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
         AND pg_get_userbyid(c.relowner) IN ('jobscope_app', 'jobscope_worker')`,
    );
    expect(owners).toEqual([]);
  });

  it("every tenant table has row-level security enabled and forced", async () => {
    const rows = await execute<{ relname: string; relrowsecurity: boolean; relforcerowsecurity: boolean }>(
      db.pool,
      sql`
      SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class
       WHERE relnamespace = 'public'::regnamespace AND relname = ANY(${sql.param([...TENANT_TABLES])}) ORDER BY relname`,
    );
    expect(rows).toHaveLength(TENANT_TABLES.length);
    for (const r of rows) expect(r, r.relname).toMatchObject({ relrowsecurity: true, relforcerowsecurity: true });
  });

  it("the console's role cannot delete job history or rewrite the audit log", async () => {
    for (const table of ["job_catalog", "job_attempts", "job_log"]) {
      await expect(execute(app, sql`DELETE FROM ${sql.identifier(table)}`)).rejects.toThrow(/permission denied/);
    }
    // A finished job's live row is deleted by the write path, and only by it.
    await expect(withScope(app, { all: true }, (tx) => execute(tx, sql`DELETE FROM jobs_live`))).rejects.toThrow(/only through the write path/);
    await expect(execute(app, sql`DELETE FROM job_events`)).rejects.toThrow(/cannot delete from view/);
    await expect(execute(app, sql`UPDATE audit_log SET reason = 'x'`)).rejects.toThrow(/permission denied/);
    await expect(execute(app, sql`DELETE FROM audit_log`)).rejects.toThrow(/permission denied/);
    await execute(db.pool, sql`INSERT INTO audit_log (actor, via, action, outcome) VALUES ('t', 'console', 'job.cancel', 'applied')`);
    // Even the owner cannot change a written audit row: a trigger refuses it.
    await expect(execute(db.pool, sql`UPDATE audit_log SET reason = 'rewritten'`)).rejects.toThrow(/append-only/);
    await expect(execute(db.pool, sql`DELETE FROM audit_log`)).rejects.toThrow(/append-only/);
  });
});

describe("row-level security, with no application filter at all", () => {
  it("a tenant-scoped transaction sees only its tenant's jobs, runs, events and rejections", async () => {
    const seen = await withScope(app, { tenantId: "acme" }, async (tx) => ({
      jobs: await execute<{ tenantId: string }>(tx, sql`SELECT tenant_id FROM jobs`),
      runs: await execute<{ jobId: string }>(tx, sql`SELECT job_id FROM job_runs`),
      events: await execute<{ jobId: string }>(tx, sql`SELECT DISTINCT job_id FROM job_events`),
      rejections: await execute<{ jobId: string }>(tx, sql`SELECT job_id FROM transition_rejections`),
    }));
    expect(new Set(seen.jobs.map((r) => r.tenantId))).toEqual(new Set(["acme"]));
    expect(seen.runs.map((r) => r.jobId)).toEqual([acmeJob.id]);
    expect(seen.events.map((r) => r.jobId)).toEqual([acmeJob.id]);
    expect(seen.rejections.map((r) => r.jobId)).toEqual([acmeJob.id]);
  });

  it("with no tenant set, the console's role sees zero rows, never all rows", async () => {
    for (const t of TENANT_TABLES) expect(await count(app, t), t).toBe(0);
    // A tenant setting left empty is no tenant either.
    const empty = await app.transaction(async (tx) => {
      await execute(tx, sql`SELECT set_config('jobscope.tenant', '', true)`);
      return count(tx, "jobs");
    });
    expect(empty).toBe(0);
  });

  it("the setting is transaction-local: it does not leak to the next use of the connection", async () => {
    const one = connect(db.roleUrl("app"), { max: 1 });
    try {
      expect(await withScope(one, { tenantId: "globex" }, (tx) => count(tx, "jobs"))).toBe(1);
      expect(await count(one, "jobs")).toBe(0);
    } finally {
      await closeDb(one);
    }
  });

  it("staff scope sees every tenant; the worker role sees everything without a scope", async () => {
    expect(await withScope(app, { all: true }, (tx) => count(tx, "jobs"))).toBe(2);
    expect(await count(workerRole, "jobs")).toBe(2);
    expect(await count(workerRole, "job_events")).toBeGreaterThan(0);
  });

  it("staff scope runs as jobscope_staff for that transaction only; the console's role never inherits its policies", async () => {
    const one = connect(db.roleUrl("app"), { max: 1 });
    try {
      const who = () => execute<{ u: string }>(one, sql`SELECT current_user AS u`).then((r) => r[0]!.u);
      expect(await withScope(one, { all: true }, (tx) => execute<{ u: string }>(tx, sql`SELECT current_user AS u`).then((r) => r[0]!.u))).toBe(
        "jobscope_staff",
      );
      expect(await who()).toBe("jobscope_app");
      expect(await count(one, "jobs")).toBe(0);
      // Membership without inheritance: the staff policies (constant true) do not apply to jobscope_app.
      // PostgreSQL 15 has no SET privilege on a membership (0011 makes jobscope_app NOINHERIT there): a member may SET ROLE.
      const [m] = await execute<{ inherits: boolean; canSet: boolean }>(
        db.pool,
        sql`
        SELECT pg_has_role('jobscope_app', 'jobscope_staff', 'USAGE') AS inherits,
               pg_has_role('jobscope_app', 'jobscope_staff', CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'SET' ELSE 'MEMBER' END) AS can_set`,
      );
      expect(m).toEqual({ inherits: false, canSet: true });
      expect(await withScope(one, { tenantId: "acme" }, (tx) => count(tx, "jobs"))).toBe(1);
      // The staff role can neither log in nor delete history.
      const [r] = await execute<{ login: boolean; bypass: boolean }>(
        db.pool,
        sql`SELECT rolcanlogin AS login, rolbypassrls AS bypass FROM pg_roles WHERE rolname = 'jobscope_staff'`,
      );
      expect(r).toEqual({ login: false, bypass: false });
      await expect(withScope(one, { all: true }, (tx) => execute(tx, sql`DELETE FROM job_log`))).rejects.toThrow(/permission denied/);
    } finally {
      await closeDb(one);
    }
  });

  it("a tenant cannot write another tenant's job through the write path", async () => {
    // Cancel globex's job from an acme-scoped transaction: the row is invisible, so "not found".
    const r = await withScope(app, { tenantId: "acme" }, (tx) =>
      transition(tx, { jobId: globexJob.id, event: "cancel", actor: { kind: "tenant", id: "dana@acme.example" } }),
    );
    expect(r).toMatchObject({ ok: false, kind: "not_found" });
    expect((await getJob(db.pool, globexJob.id)).state).toBe("running");
    // Nor can it insert a job for another tenant: the policy's WITH CHECK refuses the row.
    await expect(
      withScope(app, { tenantId: "acme" }, (tx) =>
        enqueue(tx, { tenantId: "globex", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } }, api),
      ),
    ).rejects.toThrow(/row-level security/);
    expect(await count(db.pool, "jobs")).toBe(2);
  });

  it("a history row that names another tenant than its job's is refused, even inside the write path (0023)", async () => {
    // A role that marks its transaction as the write path and writes history by hand.
    const forged = (stmt: (tx: Db) => Promise<unknown>) =>
      db.pool.transaction(async (tx) => {
        await execute(tx, sql`SELECT set_config('jobscope.write_path', 'on', true)`);
        await stmt(tx as unknown as Db);
      });
    await expect(
      forged((tx) =>
        execute(
          tx,
          sql`
        INSERT INTO job_attempts (job_id, attempt, tenant_id, worker_id, claimed_at, claim_version, finished_at, outcome, max_attempts)
        VALUES (${acmeJob.id}, 99, 'globex', 'w-forged', now(), 1, now(), 'succeeded', 3)`,
        ),
      ),
    ).rejects.toThrow(/names another tenant/);
    await expect(
      forged((tx) =>
        execute(
          tx,
          sql`
        INSERT INTO job_log (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, max_attempts)
        VALUES (${globexJob.id}, 'acme', 'cancel', 'running', 'cancelling', 'operator', 'forged', 1, 99, 3)`,
        ),
      ),
    ).rejects.toThrow(/names another tenant/);
    // The same insert with the job's own tenant is history as usual (the check is not a blanket refusal).
    await forged((tx) =>
      execute(
        tx,
        sql`
      INSERT INTO job_attempts (job_id, attempt, tenant_id, worker_id, claimed_at, claim_version, finished_at, outcome, max_attempts)
      VALUES (${acmeJob.id}, 99, 'acme', 'w-forged', now(), 1, now(), 'succeeded', 3)`,
      ),
    );
    await db.pool.transaction(async (tx) => {
      await execute(tx, sql`SELECT set_config('jobscope.retention', 'on', true)`);
      await execute(tx, sql`DELETE FROM job_attempts WHERE job_id = ${acmeJob.id} AND attempt = 99`);
    });
  });

  it("a tenant's own cancel goes through, under the same policies", async () => {
    const r = await withScope(app, { tenantId: "acme" }, (tx) =>
      transition(tx, { jobId: acmeJob.id, event: "cancel", actor: { kind: "tenant", id: "dana@acme.example" } }),
    );
    expect(r).toMatchObject({ ok: true, job: { state: "cancelling" } });
    // An operator in staff scope can act on any tenant's job.
    const op = await withScope(app, { all: true }, (tx) => transition(tx, { jobId: globexJob.id, event: "pause", actor: operator }));
    expect(op).toMatchObject({ ok: true, job: { state: "paused" } });
  });
});

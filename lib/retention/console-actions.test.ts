import { beforeAll, describe, expect, it, vi } from "vitest";
import { withScope } from "../db/scope";
import { setupTestDb } from "../db/test-db";
import { ACME, lastAudit, OPERATOR, signIn, SUPPORT } from "../frame/test-actions";
import { newJob, runJob, worker } from "../jobs/test-helpers";
import { transition } from "../jobs/transition";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// Submitting a job and deleting finished ones from the console: the actions called as a crafted
// POST would call them. Only the session is stood in for; the database is real, as the console's
// role, row-level security on.
vi.mock("@/lib/auth/viewer", async (real) => (await import("../frame/test-actions")).withSession(await real()));

const db = setupTestDb({ consolePool: true });
let submit: typeof import("@/app/jobs/new/actions");
let ops: typeof import("@/app/_operation/actions");
beforeAll(async () => {
  submit = await import("@/app/jobs/new/actions");
  ops = await import("@/app/_operation/actions");
});

const count = async (table: "job_catalog" | "job_attempts" | "job_log", id: string) =>
  (
    await execute<{ n: number }>(
      db.pool,
      sql`SELECT count(*)::int AS n FROM ${sql.identifier(table)} WHERE ${sql.identifier(table === "job_catalog" ? "id" : "job_id")} = ${id}`,
    )
  )[0]!.n;

describe("submit a job from the console", () => {
  it("an operator submits for the tenant they chose, as themselves; audited with the job", async () => {
    signIn(OPERATOR);
    const r = await submit.submitJobAction({ tenantId: "globex", type: "media.render", params: { assetId: "a-1", frames: 24 }, priority: 3 });
    if (!r.ok) throw new Error(r.error.message);
    const [job] = await execute(
      db.pool,
      sql`SELECT tenant_id, type, queue, priority, params, submitted_by_kind, submitted_by FROM job_catalog WHERE id = ${r.data.id}`,
    );
    expect(job).toEqual({
      tenantId: "globex",
      type: "media.render",
      queue: "media",
      priority: 3,
      params: { assetId: "a-1", frames: 24, resolution: "1080p" },
      submittedByKind: "operator",
      submittedBy: OPERATOR.email,
    });
    expect(await lastAudit(db.pool)).toMatchObject({ action: "job.submit", outcome: "applied", reason: expect.stringContaining(r.data.id) });
  });

  it("names each field's problem, as the API's validation does, and writes nothing", async () => {
    signIn(OPERATOR);
    const before = (await execute<{ n: number }>(db.pool, sql`SELECT count(*)::int AS n FROM job_catalog`))[0]!.n;
    const bad = await submit.submitJobAction({ tenantId: "acme", type: "media.render", params: { assetId: "", frames: 0, resolution: "8k" } });
    expect(bad.ok).toBe(false);
    expect(bad.ok ? [] : bad.error.issues?.map((i) => i.path).sort()).toEqual(["params.assetId", "params.frames", "params.resolution"]);
    expect(await lastAudit(db.pool)).toMatchObject({ action: "job.submit", outcome: "invalid" });
    expect(await submit.submitJobAction({ tenantId: "", type: "media.render", params: {} })).toMatchObject({
      ok: false,
      error: { issues: [{ path: "tenantId" }] },
    });
    expect(
      await submit.submitJobAction({ tenantId: "no-such", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } }),
    ).toMatchObject({
      ok: false,
      error: { issues: [{ path: "tenantId", message: expect.stringContaining("unknown tenant") }] },
    });
    expect(
      await submit.submitJobAction({ tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, priority: 12 }),
    ).toMatchObject({
      ok: false,
      error: { issues: [{ path: "priority" }] },
    });
    // Jobscope's own types are not the console's to submit.
    expect(
      await submit.submitJobAction({ tenantId: "acme", type: "jobscope.bulk", params: { operationId: "00000000-0000-0000-0000-000000000000" } }),
    ).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
    expect((await execute<{ n: number }>(db.pool, sql`SELECT count(*)::int AS n FROM job_catalog`))[0]!.n).toBe(before);
  });

  it("support and tenants may not submit from the console", async () => {
    for (const who of [SUPPORT, ACME]) {
      signIn(who);
      expect(
        await submit.submitJobAction({ tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } }),
      ).toMatchObject({
        ok: false,
        error: { code: "forbidden" },
      });
    }
  });
});

describe("delete finished jobs under retention's rules", () => {
  it("a dry run counts the finished jobs and their history, and names the ones that stay; the confirm deletes exactly those, audited", async () => {
    signIn(OPERATOR);
    const live = await newJob(db.pool);
    const done = await runJob(db.pool, await newJob(db.pool));
    const finished = await transition(db.pool, { jobId: done.id, event: "finish", actor: worker(), attempt: done.attempt });
    if (!finished.ok) throw new Error(finished.reason);
    const dead = await runJob(db.pool, await newJob(db.pool));
    await transition(db.pool, { jobId: dead.id, event: "abandon", actor: worker(), attempt: dead.attempt, error: { class: "E", message: "x" } });

    const selection = { kind: "ids", ids: [live.id, done.id, dead.id] };
    const p = await ops.previewOperationAction({ operation: "delete", selection });
    if (!p.ok) throw new Error(p.error.message);
    expect(p.data).toMatchObject({ willApply: 2, history: { runs: 2 }, willSkip: [{ reason: "not finished (queued)", count: 1 }] });
    expect(p.data.jobs.map(([id]) => id).sort()).toEqual([done.id, dead.id].sort());
    expect(p.data.history!.events).toBeGreaterThan(0);

    // The live job is not deleted even when the confirm names it: the database checks each job again.
    const r = await ops.applyOperationAction({ operation: "delete", selection, jobs: [[live.id, "queued", 0], ...p.data.jobs] });
    expect(r).toMatchObject({
      ok: true,
      data: { applied: 2, refused: [{ kind: "kept", count: 1 }], message: expect.stringContaining("with their 2 runs") },
    });
    for (const id of [done.id, dead.id]) {
      expect([await count("job_catalog", id), await count("job_attempts", id), await count("job_log", id)]).toEqual([0, 0, 0]);
    }
    expect(await count("job_catalog", live.id)).toBe(1);
    expect(await lastAudit(db.pool)).toMatchObject({
      actor: OPERATOR.email,
      action: "jobs.delete",
      outcome: "applied",
      jobIds: expect.arrayContaining([done.id, dead.id]),
    });
    // Nothing left to delete: said, and audited as refused.
    const again = { operation: "delete", selection: { kind: "ids", ids: [live.id] }, jobs: [[live.id, "queued", 0]] };
    expect(await ops.applyOperationAction(again)).toMatchObject({ ok: false, error: { code: "empty" } });
  });

  it("only staff delete: support and tenants are denied, and a tenant's scope cannot call the delete itself", async () => {
    const done = await runJob(db.pool, await newJob(db.pool));
    await transition(db.pool, { jobId: done.id, event: "finish", actor: worker(), attempt: done.attempt });
    for (const who of [SUPPORT, ACME]) {
      signIn(who);
      const del = { operation: "delete", selection: { kind: "ids", ids: [done.id] }, jobs: [[done.id, "succeeded", 3]] };
      expect(await ops.applyOperationAction(del)).toMatchObject({ ok: false, error: { code: "forbidden" } });
    }
    const app = db.connect({ role: "app", max: 1 });
    await expect(
      withScope(app, { tenantId: "acme" }, (tx) => execute(tx, sql`SELECT * FROM jobscope_delete_finished(${sql.param([done.id])}::uuid[], NULL)`)),
    ).rejects.toThrow(/permission denied|only staff/);
    // History stays append-only for the console's role itself.
    await expect(withScope(app, { all: true }, (tx) => execute(tx, sql`DELETE FROM job_catalog WHERE id = ${done.id}`))).rejects.toThrow();
    expect(await count("job_catalog", done.id)).toBe(1);
  });
});

import { beforeAll, describe, expect, it, vi } from "vitest";
import { setupTestDb } from "../db/test-db";
import { ACME, lastAudit, OPERATOR, signIn, SUPPORT } from "../frame/test-actions";
import { runBulkOperation } from "./bulk";
import { eventsOf, getJob, newJob, operator, rejectionsOf, runAndEnd } from "./test-helpers";
import { transition } from "./transition";
import type { JobRow } from "./types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// The one operation path (app/_operation/actions.ts) — a job page's event, a replay from /dead, a
// bulk action of the jobs list — called as a crafted POST would call it. Only the session and the
// time-zone cookie are stood in for; the database is real, as the console's role, row-level security on.
vi.mock("@/lib/server/time-zone", () => ({ viewerTimeZone: async () => "UTC" }));
vi.mock("@/lib/auth/viewer", async (real) => (await import("../frame/test-actions")).withSession(await real()));

const db = setupTestDb({ consolePool: true });
let ops: typeof import("@/app/_operation/actions");

beforeAll(async () => {
  ops = await import("@/app/_operation/actions");
});

/** A report job that died of a permanent error (of class `errorClass`) on its first of three attempts. */
async function deadJob(errorClass = "PermanentError"): Promise<JobRow> {
  return runAndEnd(db.pool, await newJob(db.pool), "abandon", { error: { class: errorClass, message: "bad period" } });
}

const one = (job: JobRow) => ({ selection: { kind: "ids", ids: [job.id] }, jobs: [[job.id, job.state, job.stateVersion]] });
const operations = async () => (await execute<{ n: number }>(db.pool, sql`SELECT count(*)::int AS n FROM bulk_operations`))[0]!.n;

describe("one path per operation", () => {
  it("replaying one dead job is one guarded transition, audited as the job's event; a stale page is refused with who moved it", async () => {
    signIn(OPERATOR);
    const job = await deadJob();
    const before = await operations();
    const r = await ops.applyOperationAction({ operation: "replay", ...one(job) });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.data).toMatchObject({ operationId: null, status: "done", applied: 1, jobs: [{ id: job.id, outcome: "applied", state: "queued" }] });
    expect(await operations()).toBe(before);
    expect(await lastAudit(db.pool)).toMatchObject({ action: "job.replay", outcome: "applied", reason: "dead → queued" });
    expect((await eventsOf(db.pool, job.id)).at(-1)).toMatchObject({ event: "replay", actorKind: "operator", actorId: OPERATOR.email });

    // The same click from a page that still shows it dead: refused, recorded, and said with who moved it.
    const again = await ops.applyOperationAction({ operation: "replay", ...one(job) });
    if (!again.ok) throw new Error(again.error.message);
    expect(again.data.jobs[0]).toMatchObject({ outcome: "conflict", state: "queued" });
    expect(again.data.jobs[0]!.message).toMatch(/^Refused: operator op@jobscope\.local applied replay at .*; the job is now queued/);
    expect(await lastAudit(db.pool)).toMatchObject({ action: "job.replay", outcome: "refused" });
    expect((await rejectionsOf(db.pool, job.id)).map((x) => x.kind)).toEqual(["conflict"]);
  });

  it("a group of one job is applied at once; a group of more is a durable operation with one audit entry", async () => {
    signIn(OPERATOR);
    const scope = { window: "all" } as const;
    const alone = await deadJob("OnlyOne");
    const group = { kind: "group", type: "report.generate", errorClass: "OnlyOne", scope };
    const p = await ops.previewOperationAction({ operation: "replay", selection: group });
    if (!p.ok) throw new Error(p.error.message);
    expect(p.data).toMatchObject({ willApply: 1, isDirect: true, jobs: [[alone.id, "dead", alone.stateVersion]] });
    const r = await ops.applyOperationAction({ operation: "replay", selection: group, jobs: p.data.jobs });
    expect(r.ok && r.data).toMatchObject({ operationId: null, applied: 1 });

    const two = [await deadJob("TwoOfThem"), await deadJob("TwoOfThem")];
    const pair = { kind: "group", type: "report.generate", errorClass: "TwoOfThem", scope };
    const q = await ops.previewOperationAction({ operation: "replay", selection: pair });
    if (!q.ok) throw new Error(q.error.message);
    expect(q.data).toMatchObject({ willApply: 2, isDirect: false });
    const started = await ops.applyOperationAction({ operation: "replay", selection: pair, jobs: q.data.jobs });
    if (!started.ok) throw new Error(started.error.message);
    const operationId = started.data.operationId!;
    expect(started.data).toMatchObject({ status: "running", total: 2, done: 0 });
    const [entry] = await execute<{ action: string; reason: string }>(
      db.pool,
      sql`SELECT action, reason FROM audit_log WHERE operation_id = ${operationId}::uuid`,
    );
    expect(entry).toMatchObject({ action: "bulk.replay" });
    await runBulkOperation(db.pool, operationId);
    for (const j of two) expect((await getJob(db.pool, j.id)).state).toBe("queued");
  });

  it("jobs picked one by one are applied at once, each only from the state the dry run saw", async () => {
    signIn(OPERATOR);
    const jobs = [await newJob(db.pool), await newJob(db.pool), await newJob(db.pool)];
    const selection = { kind: "ids", ids: jobs.map((j) => j.id) };
    const p = await ops.previewOperationAction({ operation: "cancel", selection });
    if (!p.ok) throw new Error(p.error.message);
    expect(p.data).toMatchObject({ willApply: 3, isDirect: true, risks: null, edit: null });
    // Someone else cancels one between the dry run and the confirm.
    expect((await transition(db.pool, { jobId: jobs[1]!.id, event: "cancel", actor: operator })).ok).toBe(true);
    const r = await ops.applyOperationAction({ operation: "cancel", selection, jobs: p.data.jobs });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.data).toMatchObject({ operationId: null, total: 3, done: 3, applied: 2, refused: [{ kind: "conflict", count: 1 }] });
    const audits = await execute<{ action: string; outcome: string }>(
      db.pool,
      sql`
      SELECT action, outcome FROM audit_log WHERE job_ids && ${sql.param(jobs.map((j) => j.id))}::uuid[] ORDER BY id`,
    );
    expect(audits.map((a) => `${a.action} ${a.outcome}`).sort()).toEqual(["job.cancel applied", "job.cancel applied", "job.cancel refused"]);
  });

  it("one job's dry run warns of its permanent error, says what a replay gives, and offers its params for editing", async () => {
    signIn(OPERATOR);
    const job = await deadJob();
    const p = await ops.previewOperationAction({ operation: "replay", selection: { kind: "ids", ids: [job.id] } });
    if (!p.ok) throw new Error(p.error.message);
    expect(p.data).toMatchObject({
      willApply: 1,
      jobs: [[job.id, "dead", job.stateVersion]],
      risks: { permanent: 1, poison: 0, keepLeft: { jobs: 1, most: 2 } },
    });
    expect(p.data.edit).toMatchObject({ type: "report.generate", current: { report: "daily_usage", period: "2026-11" }, isEditable: true });
    expect(p.data.edit?.fields?.map((f) => f.name)).toEqual(["report", "period"]);

    // Edited params that the type refuses: every problem by field, nothing frozen differently.
    const bad = await ops.previewOperationAction({
      operation: "replay",
      selection: { kind: "ids", ids: [job.id] },
      params: { report: "nope", period: "last month" },
    });
    expect(bad.ok && bad.data.edit?.issues?.map((i) => i.path).sort()).toEqual(["period", "report"]);
    // Params are edited per job, and on a replay only.
    const other = await deadJob();
    expect(await ops.previewOperationAction({ operation: "replay", selection: { kind: "ids", ids: [job.id, other.id] }, params: {} })).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
    expect(await ops.applyOperationAction({ operation: "cancel", ...one(job), params: {} })).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
  });

  it("a confirmed replay with edited params is checked again, audited with the diff, and runs with them", async () => {
    signIn(OPERATOR);
    const job = await deadJob();
    // The browser's copy is not trusted: params the type refuses are refused at the confirm, and audited.
    const refused = await ops.applyOperationAction({ operation: "replay", ...one(job), params: { report: "daily_usage", period: "soon" } });
    expect(refused).toMatchObject({ ok: false, error: { code: "invalid_input", message: expect.stringContaining("params.period") } });
    expect(await lastAudit(db.pool)).toMatchObject({ action: "job.replay", outcome: "invalid" });

    const r = await ops.applyOperationAction({ operation: "replay", ...one(job), params: { report: "daily_usage", period: "2026-12" } });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.data.applied).toBe(1);
    const entry = await lastAudit(db.pool);
    expect(entry).toMatchObject({ action: "job.replay", outcome: "applied" });
    expect(entry.reason).toContain('with edited params: period "2026-11" → "2026-12"');
    const [live] = await execute<{ state: string; params: unknown }>(db.pool, sql`SELECT state, params FROM jobs_live WHERE id = ${job.id}`);
    expect(live).toEqual({ state: "queued", params: { report: "daily_usage", period: "2026-12" } });
  });

  it("support may not replay; a tenant member cancels its own job, but not several, and nothing of an operator's", async () => {
    signIn(SUPPORT);
    const job = await deadJob();
    expect(await ops.previewOperationAction({ operation: "replay", selection: { kind: "ids", ids: [job.id] } })).toMatchObject({
      ok: false,
      error: { code: "forbidden" },
    });
    expect(await ops.applyOperationAction({ operation: "replay", ...one(job) })).toMatchObject({ ok: false, error: { code: "forbidden" } });
    expect(await lastAudit(db.pool)).toMatchObject({ actor: SUPPORT.email, action: "job.replay", outcome: "denied" });

    signIn(ACME);
    const mine = [await newJob(db.pool), await newJob(db.pool)];
    const several = { selection: { kind: "ids", ids: mine.map((j) => j.id) }, jobs: mine.map((j) => [j.id, "queued", 0]) };
    expect(await ops.applyOperationAction({ operation: "cancel", ...several })).toMatchObject({ ok: false, error: { code: "forbidden" } });
    expect(await lastAudit(db.pool)).toMatchObject({ action: "bulk.start", outcome: "denied" });
    expect(await ops.applyOperationAction({ operation: "pause", ...one(mine[0]!) })).toMatchObject({ ok: false, error: { code: "forbidden" } });
    const r = await ops.applyOperationAction({ operation: "cancel", ...one(mine[0]!) });
    expect(r.ok && r.data.jobs[0]).toMatchObject({ outcome: "applied", state: "cancelled" });
    expect(await lastAudit(db.pool)).toMatchObject({ actor: ACME.email, action: "job.cancel", outcome: "applied" });
    // Another tenant's job is "no such job": row-level security, the same answer as a job that does not exist.
    const theirs = await newJob(db.pool, { tenantId: "globex" });
    const other = await ops.applyOperationAction({ operation: "cancel", ...one(theirs) });
    expect(other.ok && other.data.jobs[0]).toMatchObject({ outcome: "not_found" });
    expect((await getJob(db.pool, theirs.id)).state).toBe("queued");
  });
});

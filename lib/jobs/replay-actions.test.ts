import { beforeAll, describe, expect, it, vi } from "vitest";
import { can, type Permission } from "../auth/permissions";
import type { Viewer } from "../auth/viewer";
import { setupTestDb } from "../db/test-db";
import { runBulkOperation } from "./bulk";
import { newJob, runJob, worker } from "./test-helpers";
import { transition } from "./transition";
import type { JobRow } from "./types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// Replay's server actions — the one path from the job page, /dead and the jobs list — called as a
// crafted POST would call them. Only the session is stood in for; the database is real, as the
// console's role, row-level security on.
let signedIn: Viewer | null = null;
vi.mock("@/lib/auth/viewer", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/auth/viewer")>()),
  authorize: async (permission: Permission) => {
    if (!signedIn) return { ok: false, status: 401, code: "unauthenticated", message: "Sign in to do this.", viewer: null };
    if (!can(signedIn, permission)) return { ok: false, status: 403, code: "forbidden", message: "Your role may not do this.", viewer: signedIn };
    return { ok: true, viewer: signedIn };
  },
}));

const viewer = (role: Viewer["role"], email: string): Viewer => ({
  userId: `u-${email}`,
  email,
  name: email,
  role,
  tenantId: null,
  tenantOwner: false,
});
const OPERATOR = viewer("operator", "op@jobscope.local");
const SUPPORT = viewer("support", "support@jobscope.local");

const db = setupTestDb({ consolePool: true });
let replay: typeof import("@/app/_replay/actions");
let jobPage: typeof import("@/app/jobs/[id]/actions");
let bulk: typeof import("@/app/jobs/actions");

beforeAll(async () => {
  replay = await import("@/app/_replay/actions");
  jobPage = await import("@/app/jobs/[id]/actions");
  bulk = await import("@/app/jobs/actions");
});

const lastAudit = async () =>
  (
    await execute<{ actor: string; action: string; outcome: string; reason: string }>(
      db.pool,
      sql`SELECT actor, action, outcome, reason FROM audit_log ORDER BY id DESC LIMIT 1`,
    )
  )[0]!;

/** A report job that died of a permanent error on its first of three attempts. */
async function deadJob(): Promise<JobRow> {
  const job = await runJob(db.pool, await newJob(db.pool));
  const r = await transition(db.pool, {
    jobId: job.id,
    event: "abandon",
    actor: worker(),
    attempt: job.attempt,
    error: { class: "PermanentError", message: "bad period" },
  });
  if (!r.ok) throw new Error(r.reason);
  return r.job;
}

describe("replay has one path", () => {
  it("the job page's generic action refuses replay: it goes through the dry run", async () => {
    signedIn = OPERATOR;
    const job = await deadJob();
    const r = await jobPage.applyJobEventAction({ jobId: job.id, event: "replay", expectedState: "dead", expectedVersion: job.stateVersion });
    expect(r).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    expect(await lastAudit()).toMatchObject({ action: "job.replay", outcome: "invalid" });
    const [now] = await execute<{ state: string }>(db.pool, sql`SELECT state FROM jobs WHERE id = ${job.id}`);
    expect(now!.state).toBe("dead");
    // So does the jobs list's generic bulk action.
    expect(await bulk.previewBulkAction({ event: "replay", selection: { ids: [job.id] } })).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
  });

  it("one job's dry run warns of its permanent error, says what a replay gives, and offers its params for editing", async () => {
    signedIn = OPERATOR;
    const job = await deadJob();
    const p = await replay.previewReplayAction({ selection: { kind: "ids", ids: [job.id] } });
    if (!p.ok) throw new Error(p.error.message);
    expect(p.data).toMatchObject({
      willApply: 1,
      frozen: [[job.id, "dead", job.stateVersion]],
      risks: { permanent: 1, poison: 0, keepLeft: { jobs: 1, most: 2 } },
    });
    expect(p.data.edit).toMatchObject({ type: "report.generate", current: { report: "daily_usage", period: "2026-11" }, isEditable: true });
    expect(p.data.edit?.fields?.map((f) => f.name)).toEqual(["report", "period"]);

    // Edited params that the type refuses: every problem by field, nothing frozen differently.
    const bad = await replay.previewReplayAction({ selection: { kind: "ids", ids: [job.id] }, params: { report: "nope", period: "last month" } });
    expect(bad.ok && bad.data.edit?.issues?.map((i) => i.path).sort()).toEqual(["period", "report"]);
    // Params are edited per job.
    const other = await deadJob();
    expect(await replay.previewReplayAction({ selection: { kind: "ids", ids: [job.id, other.id] }, params: {} })).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
  });

  it("a confirmed replay with edited params is checked again, audited with the diff, and runs with them", async () => {
    signedIn = OPERATOR;
    const job = await deadJob();
    const frozen = [[job.id, "dead", job.stateVersion]] as [string, "dead", number][];
    // The browser's copy is not trusted: params the type refuses are refused at the confirm, and audited.
    const refused = await replay.startReplayAction({
      selection: { kind: "ids", ids: [job.id] },
      frozen,
      params: { report: "daily_usage", period: "soon" },
    });
    expect(refused).toMatchObject({ ok: false, error: { code: "invalid_input", message: expect.stringContaining("params.period") } });
    expect(await lastAudit()).toMatchObject({ action: "replay.start", outcome: "invalid" });

    const started = await replay.startReplayAction({
      selection: { kind: "ids", ids: [job.id] },
      frozen,
      params: { report: "daily_usage", period: "2026-12" },
    });
    if (!started.ok) throw new Error(started.error.message);
    const [entry] = await execute<{ action: string; reason: string }>(
      db.pool,
      sql`
      SELECT action, reason FROM audit_log WHERE operation_id = ${started.data.operationId}::uuid`,
    );
    expect(entry).toMatchObject({ action: "bulk.replay" });
    expect(entry!.reason).toContain('with edited params: period "2026-11" → "2026-12"');
    await runBulkOperation(db.pool, started.data.operationId);
    const [live] = await execute<{ state: string; params: unknown }>(db.pool, sql`SELECT state, params FROM jobs_live WHERE id = ${job.id}`);
    expect(live).toEqual({ state: "queued", params: { report: "daily_usage", period: "2026-12" } });
  });

  it("support may not replay, from any page", async () => {
    signedIn = SUPPORT;
    const job = await deadJob();
    expect(await replay.previewReplayAction({ selection: { kind: "ids", ids: [job.id] } })).toMatchObject({
      ok: false,
      error: { code: "forbidden" },
    });
    expect(await replay.startReplayAction({ selection: { kind: "ids", ids: [job.id] }, frozen: [[job.id, "dead", job.stateVersion]] })).toMatchObject(
      {
        ok: false,
        error: { code: "forbidden" },
      },
    );
  });
});

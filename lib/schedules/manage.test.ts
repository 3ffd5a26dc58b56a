import { beforeAll, describe, expect, it, vi } from "vitest";
import { setupTestDb } from "../db/test-db";
import { ACME, lastAudit, OPERATOR, signIn, SUPPORT } from "../frame/test-actions";
import { declareSchedules, type ScheduleRow } from "./schedules";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// The schedules page's actions, called as a crafted POST would call them: only the session is stood
// in for; the database is real, as the console's role, row-level security on.
vi.mock("@/lib/auth/viewer", async (real) => (await import("../frame/test-actions")).withSession(await real()));

// The person's time zone is a cookie of the request; these calls have none.
vi.mock("@/lib/server/time-zone", () => ({ viewerTimeZone: async () => "UTC" }));

const db = setupTestDb({ consolePool: true });
let actions: typeof import("@/app/schedules/actions");
beforeAll(async () => {
  actions = await import("@/app/schedules/actions");
});

let n = 0;
const name = () => `m${++n}-${Math.random().toString(36).slice(2, 7)}`;
const PARAMS = { report: "daily_usage", period: "2026-11" } as const;
const REPORT = { cron: "0 2 * * *", timeZone: "UTC", type: "report.generate", params: PARAMS as object, tenantId: "acme", queue: "", priority: 0 };
const row = async (id: string) => (await execute<ScheduleRow>(db.pool, sql`SELECT * FROM schedules WHERE id = ${id}`))[0];

async function created(extra: Partial<typeof REPORT> = {}): Promise<ScheduleRow> {
  signIn(OPERATOR);
  const r = await actions.createScheduleAction({ name: name(), ...REPORT, ...extra });
  if (!r.ok) throw new Error(r.error.message);
  return (await row(r.data.id))!;
}

describe("schedules people can manage", () => {
  it("refuses a per-second schedule with the reason, at create, at edit and in code, and stores nothing", async () => {
    signIn(OPERATOR);
    const r = await actions.createScheduleAction({ name: name(), ...REPORT, cron: "* * * * * *" });
    expect(r).toMatchObject({
      ok: false,
      error: {
        code: "invalid_input",
        message: expect.stringContaining("fires 60 times a minute (Every second); a schedule fires at most once a minute"),
      },
    });
    expect(await lastAudit(db.pool)).toMatchObject({ action: "schedule.create", outcome: "invalid" });
    const s = await created();
    expect(await actions.updateScheduleAction({ id: s.id, seen: s.updatedAt.toISOString(), ...REPORT, cron: "*/10 * * * * *" })).toMatchObject({
      ok: false,
    });
    expect((await row(s.id))!.cron).toBe("0 2 * * *");
    const declared = await declareSchedules(
      db.pool,
      [{ name: name(), cron: "* * * * * *", type: "report.generate", params: PARAMS, tenantId: "acme" }],
      "worker:w",
    );
    expect(declared[0]).toMatchObject({ outcome: "invalid", message: expect.stringContaining("at most once a minute") });
  });

  it("edits a schedule: checked as at create, a new expression starts at its next tick, and a stale page is refused", async () => {
    const s = await created();
    const seen = s.updatedAt.toISOString();
    const edited = await actions.updateScheduleAction({
      id: s.id,
      seen,
      ...REPORT,
      cron: "30 6 * * 1-5",
      timeZone: "Europe/Berlin",
      params: { report: "billing_summary", period: "2026-12" },
    });
    expect(edited).toMatchObject({ ok: true });
    const after = (await row(s.id))!;
    expect(after).toMatchObject({
      cron: "30 6 * * 1-5",
      timeZone: "Europe/Berlin",
      params: { report: "billing_summary", period: "2026-12" },
      updatedBy: OPERATOR.email,
    });
    expect(after.nextRunAt).not.toEqual(s.nextRunAt);
    expect(await lastAudit(db.pool)).toMatchObject({
      action: "schedule.update",
      outcome: "applied",
      reason: expect.stringContaining("30 6 * * 1-5"),
    });
    // The page the operator opened before that save is stale now: refused, nothing overwritten.
    const stale = await actions.updateScheduleAction({ id: s.id, seen, ...REPORT });
    expect(stale).toMatchObject({
      ok: false,
      error: { code: "refused", message: expect.stringContaining("was changed by op@jobscope.local since you opened it") },
    });
    expect((await row(s.id))!.cron).toBe("30 6 * * 1-5");
    // Bad params are the type's to refuse.
    expect(
      await actions.updateScheduleAction({ id: s.id, seen: after.updatedAt.toISOString(), ...REPORT, params: { report: "nope" } }),
    ).toMatchObject({
      ok: false,
      error: { code: "invalid_input", message: expect.stringContaining("params") },
    });
  });

  it("runs a schedule now (paused or not) as the operator, leaving its next tick where it was", async () => {
    const s = await created();
    signIn(OPERATOR);
    await actions.setSchedulePausedAction({ id: s.id, paused: true });
    const r = await actions.runScheduleNowAction({ id: s.id });
    if (!r.ok) throw new Error(r.error.message);
    const [job] = await execute<{ type: string; tenantId: string; params: unknown; submittedByKind: string; submittedBy: string }>(
      db.pool,
      sql`
      SELECT type, tenant_id, params, submitted_by_kind, submitted_by FROM job_catalog WHERE id = ${r.data.jobId}`,
    );
    expect(job).toEqual({
      type: "report.generate",
      tenantId: "acme",
      params: REPORT.params,
      submittedByKind: "operator",
      submittedBy: OPERATOR.email,
    });
    const [run] = await execute<{ jobId: string; enqueuedBy: string }>(
      db.pool,
      sql`SELECT job_id, enqueued_by FROM schedule_runs WHERE schedule_id = ${s.id}`,
    );
    expect(run).toEqual({ jobId: r.data.jobId, enqueuedBy: `console:${OPERATOR.email}` });
    expect((await row(s.id))!.nextRunAt).toEqual(s.nextRunAt);
    expect(await lastAudit(db.pool)).toMatchObject({ action: "schedule.run_now", outcome: "applied" });
  });

  it("deletes a schedule and its run records; the jobs it submitted stay", async () => {
    const s = await created();
    const ran = await actions.runScheduleNowAction({ id: s.id });
    if (!ran.ok) throw new Error(ran.error.message);
    expect(await actions.deleteScheduleAction({ id: s.id, seen: s.updatedAt.toISOString() })).toMatchObject({ ok: true });
    expect(await row(s.id)).toBeUndefined();
    expect(await execute(db.pool, sql`SELECT 1 FROM schedule_runs WHERE schedule_id = ${s.id}`)).toHaveLength(0);
    expect(await execute(db.pool, sql`SELECT 1 FROM job_catalog WHERE id = ${ran.data.jobId}`)).toHaveLength(1);
    expect(await lastAudit(db.pool)).toMatchObject({ action: "schedule.delete", outcome: "applied" });
  });

  it("leaves a schedule declared in code to its code: no edit or delete here, but run now and pause", async () => {
    const nm = name();
    await declareSchedules(db.pool, [{ name: nm, cron: "0 3 * * *", type: "report.generate", params: PARAMS, tenantId: "acme" }], "worker:w");
    const [s] = await execute<ScheduleRow>(db.pool, sql`SELECT * FROM schedules WHERE name = ${nm}`);
    signIn(OPERATOR);
    const seen = s!.updatedAt.toISOString();
    expect(await actions.updateScheduleAction({ id: s!.id, seen, ...REPORT })).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("declared in code") },
    });
    expect(await actions.deleteScheduleAction({ id: s!.id, seen })).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("declared in code") },
    });
    expect(await actions.runScheduleNowAction({ id: s!.id })).toMatchObject({ ok: true });
  });

  it("only operators change schedules: support and tenants are denied and audited", async () => {
    const s = await created();
    for (const who of [SUPPORT, ACME]) {
      signIn(who);
      expect(await actions.runScheduleNowAction({ id: s.id })).toMatchObject({ ok: false, error: { code: "forbidden" } });
      expect(await actions.deleteScheduleAction({ id: s.id, seen: s.updatedAt.toISOString() })).toMatchObject({
        ok: false,
        error: { code: "forbidden" },
      });
      expect(await lastAudit(db.pool)).toMatchObject({ actor: who.email, action: "schedule.delete", outcome: "denied" });
    }
    expect(await row(s.id)).toBeDefined();
  });
});

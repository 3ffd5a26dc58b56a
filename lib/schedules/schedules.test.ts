import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { waitForLockWaiters } from "../db/test-wait";
import { createSupervisor } from "../supervisor/supervisor";
import { silentLogger } from "../worker/log";
import { createWorker } from "../worker/worker";
import { latestTick, nextTick } from "./cron";
import { fireSchedule, runDueSchedules } from "./fire";
import { listSchedules } from "./list";
import { createSchedule, declareSchedules, ScheduleError, setSchedulePaused, type ScheduleRow, type ValidSchedule } from "./schedules";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();
/** Two supervisors' own pools, as the runtime role supervisors connect with. */
const supA = t.connect({ role: "worker", max: 2 });
const supB = t.connect({ role: "worker", max: 2 });
const holder = t.connect({ max: 1 });

let n = 0;
const name = () => `s${++n}-${Math.random().toString(36).slice(2, 7)}`;
const report = { type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, tenantId: "acme" } as const;

/** A schedule whose next tick is `agoMs` in the past (the supervisors were down since); its type is report's. */
async function dueSchedule(cron: string, agoMs: number, queue = `sq-${name()}`): Promise<ScheduleRow & ValidSchedule> {
  const s = await createSchedule(t.pool, { ...report, name: name(), cron, queue }, "op@test");
  const [row] = await execute<ScheduleRow & ValidSchedule>(
    t.pool,
    sql`
    UPDATE schedules SET next_run_at = ${latestTick(cron, "UTC", new Date(Date.now() - agoMs))} WHERE id = ${s.id} RETURNING *`,
  );
  return row!;
}
const jobsOf = (s: { id: string }) =>
  execute<{ id: string; idempotencyKey: string; submittedBy: string; submittedByKind: string }>(
    t.pool,
    sql`
    SELECT id, idempotency_key, submitted_by, submitted_by_kind FROM job_catalog WHERE idempotency_key LIKE ${`schedule:${s.id}:%`} ORDER BY created_at`,
  );
const runsOf = (s: { id: string }) =>
  execute<{ tickAt: Date; jobId: string; missed: number }>(
    t.pool,
    sql`SELECT tick_at, job_id, missed FROM schedule_runs WHERE schedule_id = ${s.id} ORDER BY tick_at`,
  );

describe("schedules", () => {
  it("refuses a type only Jobscope submits (a bulk run, a webhook, the demo's crash), and stores nothing", async () => {
    const before = (await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM schedules`))[0]!.n;
    for (const type of ["jobscope.bulk", "poison.crash"]) {
      await expect(createSchedule(t.pool, { ...report, type, params: {}, name: name(), cron: "0 * * * *" }, "op@test")).rejects.toThrow(
        /submitted only by Jobscope/,
      );
    }
    expect((await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM schedules`))[0]!.n).toBe(before);
  });

  it("validates a schedule before storing it, with the field at fault", async () => {
    const bad = async (raw: object) => {
      try {
        await createSchedule(t.pool, { ...report, name: name(), cron: "0 * * * *", ...raw }, "op@test");
      } catch (e) {
        return e instanceof ScheduleError ? [e.code, e.field] : ["other", String(e)];
      }
      return ["created"];
    };
    expect(await bad({ cron: "0 * * *" })).toEqual(["invalid_input", "cron"]);
    expect(await bad({ timeZone: "Mars/Olympus" })).toEqual(["invalid_input", "timeZone"]);
    expect(await bad({ type: "nope" })).toEqual(["invalid_input", "type"]);
    expect(await bad({ params: { report: "nope", period: "2026-11" } })).toEqual(["invalid_input", "params"]);
    expect(await bad({ tenantId: "no-such-tenant" })).toEqual(["unknown_tenant", "tenantId"]);
    expect(await bad({ name: "Bad Name" })).toEqual(["invalid_input", "name"]);
    const s = await createSchedule(t.pool, { ...report, name: name(), cron: "0 2 * * *", timeZone: "Europe/Berlin" }, "op@test");
    expect(s).toMatchObject({ source: "console", queue: "default", paused: false, createdBy: "op@test" });
    expect(s.nextRunAt).toEqual(nextTick("0 2 * * *", "Europe/Berlin", new Date(s.createdAt.getTime() - 5_000)));
    expect(await bad({ name: s.name })).toEqual(["name_taken", "name"]);
  });

  it("submits one job for the latest tick missed while nothing ran, and skips the earlier ones", async () => {
    const s = await dueSchedule("* * * * *", 10 * 60_000);
    const now = new Date();
    const r = await runDueSchedules(supA, { supervisorId: "sup-a", now });
    expect(r.fired).toBeGreaterThanOrEqual(1);
    const latest = latestTick("* * * * *", "UTC", now);
    const runs = await runsOf(s);
    expect(runs).toEqual([{ tickAt: latest, jobId: expect.any(String), missed: 10 }]);
    const jobs = await jobsOf(s);
    expect(jobs).toEqual([
      {
        id: runs[0]!.jobId,
        idempotencyKey: `schedule:${s.id}:${latest.toISOString()}`,
        submittedBy: `schedule:${s.name}`,
        submittedByKind: "supervisor",
      },
    ]);
    const [after] = await execute<ScheduleRow>(t.pool, sql`SELECT * FROM schedules WHERE id = ${s.id}`);
    expect(after).toMatchObject({ nextRunAt: nextTick("* * * * *", "UTC", now), lastTickAt: latest, lastJobId: runs[0]!.jobId, lastError: null });
    // Nothing more is due until the next tick.
    await runDueSchedules(supA, { supervisorId: "sup-a", now });
    expect(await runsOf(s)).toHaveLength(1);
  });

  it("two supervisors racing for the same tick submit one job: the second waits on the row, then finds it moved", async () => {
    const s = await dueSchedule("*/5 * * * *", 60_000);
    // Hold the schedule's row so both supervisors read it as due and queue up on its lock.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const locked = new Promise<void>((ready) => {
      void holder.transaction(async (tx) => {
        await execute(tx, sql`SELECT 1 FROM schedules WHERE id = ${s.id} FOR UPDATE`);
        ready();
        await held;
      });
    });
    await locked;
    const now = new Date();
    const racing = [runDueSchedules(supA, { supervisorId: "sup-a", now }), runDueSchedules(supB, { supervisorId: "sup-b", now })];
    await waitForLockWaiters(t.pool, 2);
    release();
    const [a, b] = await Promise.all(racing);
    expect(a!.fired + b!.fired).toBe(1);
    expect(a!.lost + b!.lost).toBe(1);
    expect(await jobsOf(s)).toHaveLength(1);
    expect(await runsOf(s)).toHaveLength(1);
  });

  it("two supervisor loops ticking at once over many schedules: exactly one job per schedule and tick", async () => {
    const schedules = await Promise.all(Array.from({ length: 12 }, () => dueSchedule("*/10 * * * *", 30 * 60_000)));
    const a = createSupervisor({ db: supA, id: "sup-a" });
    const b = createSupervisor({ db: supB, id: "sup-b" });
    for (let round = 0; round < 4; round++) await Promise.all([a.tick(), b.tick()]);
    for (const s of schedules) {
      expect(await jobsOf(s)).toHaveLength(1);
      expect(await runsOf(s)).toHaveLength(1);
    }
  });

  it("the idempotency key holds even if the schedule is moved back to a tick it already submitted", async () => {
    const s = await dueSchedule("*/5 * * * *", 60_000);
    const now = new Date();
    const first = await fireSchedule(supA, s, now, "sup-a");
    expect(first).toMatchObject({ kind: "fired", created: true });
    // An edit by hand (or a clock stepped back) puts the old tick back.
    await execute(t.pool, sql`UPDATE schedules SET next_run_at = ${s.nextRunAt} WHERE id = ${s.id}`);
    const again = await fireSchedule(supB, s, now, "sup-b");
    expect(again).toMatchObject({ kind: "fired", created: false, jobId: first.kind === "fired" ? first.jobId : "" });
    expect(await jobsOf(s)).toHaveLength(1);
    expect(await runsOf(s)).toHaveLength(1);
  });

  it("a paused schedule submits nothing; resumed, it starts at its next tick without making up the paused ones", async () => {
    const s = await dueSchedule("* * * * *", 5 * 60_000);
    await setSchedulePaused(t.pool, s.id, true, "op@test");
    await runDueSchedules(supA, { supervisorId: "sup-a" });
    expect(await runsOf(s)).toEqual([]);
    const before = new Date();
    const resumed = await setSchedulePaused(t.pool, s.id, false, "op@test");
    expect(resumed?.changed).toBe(true);
    expect(resumed!.schedule.nextRunAt.getTime()).toBeGreaterThan(before.getTime());
    await runDueSchedules(supA, { supervisorId: "sup-a" });
    expect(await runsOf(s)).toEqual([]);
    expect(await setSchedulePaused(t.pool, s.id, false, "op@test")).toMatchObject({ changed: false });
    expect(await setSchedulePaused(t.pool, "00000000-0000-4000-8000-000000000000", true, "op@test")).toBeNull();
  });

  it("a tick that cannot submit is skipped and says why, instead of failing every second", async () => {
    const s = await dueSchedule("*/5 * * * *", 60_000);
    await execute(t.pool, sql`UPDATE schedules SET params = '{"report": "retired_report", "period": "2026-11"}'::jsonb WHERE id = ${s.id}`);
    const r = await runDueSchedules(supA, { supervisorId: "sup-a" });
    expect(r.failed).toBeGreaterThanOrEqual(1);
    const [row] = await execute<ScheduleRow>(t.pool, sql`SELECT * FROM schedules WHERE id = ${s.id}`);
    expect(row!.lastError).toMatch(/invalid params for report.generate/);
    expect(row!.nextRunAt.getTime()).toBeGreaterThan(Date.now());
    expect(await jobsOf(s)).toEqual([]);
  });

  it("a worker declares its schedules at start: created, then kept (paused stays paused), rewritten when the code changes", async () => {
    const nm = name();
    const decl = {
      name: nm,
      cron: "0 3 * * *",
      timeZone: "Europe/Berlin",
      type: "report.generate",
      params: { report: "billing_summary", period: "2026-11" },
      tenantId: "globex",
    } as const;
    const worker = createWorker({ db: supA, queues: [`wq-${nm}`], concurrency: 1, handlers: {}, log: silentLogger, schedules: [decl] });
    await worker.start();
    await worker.stop();
    const [row] = await execute<ScheduleRow>(t.pool, sql`SELECT * FROM schedules WHERE name = ${nm}`);
    expect(row).toMatchObject({ source: "code", tenantId: "globex", queue: "default", cron: "0 3 * * *", updatedBy: `worker:${worker.id}` });
    await setSchedulePaused(t.pool, row!.id, true, "op@test");
    expect(await declareSchedules(supB, [decl], "worker:w2")).toEqual([{ name: nm, outcome: "unchanged" }]);
    expect(await declareSchedules(supB, [{ ...decl, cron: "30 3 * * *" }], "worker:w2")).toEqual([{ name: nm, outcome: "updated" }]);
    const [changed] = await execute<ScheduleRow>(t.pool, sql`SELECT * FROM schedules WHERE name = ${nm}`);
    expect(changed).toMatchObject({ paused: true, cron: "30 3 * * *", updatedBy: "worker:w2" });
    expect(changed!.nextRunAt).not.toEqual(row!.nextRunAt);
    // A name an operator's schedule holds is not taken over; a bad declaration is reported, not thrown.
    const consoleOne = await createSchedule(t.pool, { ...report, name: name(), cron: "0 * * * *" }, "op@test");
    expect(
      await declareSchedules(
        supB,
        [
          { ...decl, name: consoleOne.name },
          { ...decl, name: name(), cron: "every day" },
        ],
        "worker:w2",
      ),
    ).toEqual([
      { name: consoleOne.name, outcome: "conflict", message: expect.stringContaining("console") },
      { name: expect.any(String), outcome: "invalid", message: expect.stringContaining("cron") },
    ]);
  });
});

describe("the schedules page's list", () => {
  it("lists schedules by name as typed rows (Dates, params as an object), with upcoming ticks and their runs newest first", async () => {
    const s = await dueSchedule("*/5 * * * *", 11 * 60_000);
    await dueSchedule("*/5 * * * *", 60_000);
    const now = new Date();
    await fireSchedule(supA, s, now, "sup-a");
    const list = await listSchedules(t.pool, now);
    expect(list.map((r) => r.name)).toEqual(list.map((r) => r.name).sort());
    const row = list.find((r) => r.id === s.id)!;
    expect(row).toMatchObject({ name: s.name, type: "report.generate", params: report.params, source: "console", paused: false, priority: 0 });
    expect(row.nextRunAt).toBeInstanceOf(Date);
    expect(row.createdAt).toBeInstanceOf(Date);
    expect(row.nextRunAt.getTime()).toBeGreaterThan(s.nextRunAt.getTime());
    expect(row.upcoming[0]).toEqual(row.nextRunAt);
    expect(row.runs).toHaveLength(1);
    expect(row.runs[0]).toMatchObject({ state: "queued", enqueuedBy: "sup-a" });
  });
});

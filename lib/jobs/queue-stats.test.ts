import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { withScope } from "../db/scope";
import { claim } from "./claim";
import { getQueueStatus, listQueues, QUEUE_PAGE } from "./queue-stats";
import { changeQueue } from "./queues";
import { heldBy, newJob, operator } from "./test-helpers";
import { transition } from "./transition";
import { withDirectWrites } from "./direct-write";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();

const submit = (queue: string, opts: { notBefore?: Date } = {}) => newJob(t.pool, { queue, ...opts });
const asStaff = <T>(fn: Parameters<typeof withScope<T>>[2]) => withScope(t.pool, { all: true }, fn);

describe("queue stats", () => {
  it("counts a queue's live jobs by state, finds its oldest due job, its last hour and the workers serving it", async () => {
    const queue = "qs-depth";
    const first = await submit(queue);
    for (let i = 0; i < 4; i++) await submit(queue);
    await submit(queue, { notBefore: new Date(Date.now() + 3_600_000) });
    await execute(t.pool, sql`INSERT INTO workers (id, host, pid, queues, concurrency) VALUES ('w-stats', 'h', 1, ${sql.param([queue])}, 4)`);
    // Two claimed and started by the worker: one finishes, one fails into retry_wait; one more stays running.
    const taken = await claim(t.pool, { workerId: "w-stats", queues: [queue], limit: 3, startNow: 3 });
    expect(taken.map((j) => j.id)).toContain(first.id);
    const [a, b] = taken;
    await transition(t.pool, { ...heldBy(a!, "w-stats"), event: "finish" });
    await transition(t.pool, {
      ...heldBy(b!, "w-stats"),
      event: "fail",
      retryAt: new Date(Date.now() + 60_000),
      error: { class: "Boom", message: "boom" },
    });
    await changeQueue(t.pool, queue, { kind: "pause" }, operator);

    const rows = (await asStaff((tx) => listQueues(tx))).queues;
    const q = rows.find((r) => r.name === queue)!;
    expect(q).toMatchObject({ paused: true, fair: false, concurrencyLimit: null });
    expect(q.counts).toMatchObject({
      queued: { n: 3, capped: false },
      running: { n: 1, capped: false },
      retry_wait: { n: 1, capped: false },
      claimed: { n: 0, capped: false },
      paused: { n: 0, capped: false },
    });
    // The scheduled job is not due; the oldest due one is the oldest of those still queued.
    const [oldest] = await execute<{ notBefore: Date }>(
      t.pool,
      sql`SELECT min(not_before) AS not_before FROM jobs_live WHERE queue = ${queue} AND state = 'queued' AND not_before <= now()`,
    );
    expect(q.oldestDueAt).toEqual(oldest!.notBefore);
    expect(q.lastHour).toMatchObject({ succeeded: 1, failed: 1, other: 0, failureRate: 0.5 });
    expect(q.lastHour.perMinute).toBeGreaterThan(0);
    expect(q.workers).toEqual([{ id: "w-stats", concurrency: 4, held: 1, free: 3 }]);
    expect(q.changes).toEqual([{ event: "pause", value: null, actorKind: "operator", actorId: operator.id, at: expect.any(Date) }]);

    const status = await asStaff((tx) => getQueueStatus(tx, queue));
    expect(status).toMatchObject({ name: queue, paused: true, pausedBy: operator.id, pausedAt: expect.any(Date) });
    expect(await asStaff((tx) => getQueueStatus(tx, "no-such-queue"))).toMatchObject({ paused: false, pausedAt: null, pausedBy: null });
  });

  it("lists a queue that has only settings, and one that only a live worker serves", async () => {
    await changeQueue(t.pool, "qs-settings-only", { kind: "limit", limit: 7 }, operator);
    await execute(
      t.pool,
      sql`INSERT INTO workers (id, host, pid, queues, concurrency) VALUES ('w-lonely', 'h', 2, ${sql.param(["qs-worker-only"])}, 2)`,
    );
    const rows = (await asStaff((tx) => listQueues(tx))).queues;
    expect(rows.find((r) => r.name === "qs-settings-only")).toMatchObject({ concurrencyLimit: 7, counts: { queued: { n: 0 } } });
    expect(rows.find((r) => r.name === "qs-worker-only")).toMatchObject({ workers: [{ id: "w-lonely", free: 2 }] });
    expect(rows.map((r) => r.name)).toEqual([...rows.map((r) => r.name)].sort());
  });

  it("stops counting a queue's queued jobs at 1,000 and says so", async () => {
    const queue = "qs-deep";
    // 1,005 submits one by one would take a while: one INSERT … SELECT per table, as the benchmark loaders write.
    await withDirectWrites(t.pool, async (tx) => {
      await execute(
        tx,
        sql`
        INSERT INTO job_catalog (id, tenant_id, type, queue, priority, max_attempts, params, submitted_by_kind, submitted_by, created_at, not_before)
        SELECT gen_random_uuid(), 'acme', 'report.generate', ${queue}, 0, 3, '{}'::jsonb, 'api', 'test', now(), now() FROM generate_series(1, 1005)`,
      );
      await execute(
        tx,
        sql`
        INSERT INTO jobs_live (id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version, not_before, params, created_at, updated_at)
        SELECT id, tenant_id, type, queue, priority, 'queued', 0, max_attempts, 0, not_before, params, created_at, created_at FROM job_catalog WHERE queue = ${queue}`,
      );
    });
    const rows = (await asStaff((tx) => listQueues(tx))).queues;
    expect(rows.find((r) => r.name === queue)?.counts.queued).toEqual({ n: 1_000, capped: true });
  });

  it("pages and searches instead of truncating: 230 queues that sort first do not hide the others", async () => {
    for (let i = 0; i < 230; i++) await submit(`0${String(i).padStart(4, "0")}-first`);
    await submit("exports");
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 20; page++) {
      const p = await asStaff((tx) => listQueues(tx, { after }));
      expect(p.queues.length).toBeLessThanOrEqual(QUEUE_PAGE);
      seen.push(...p.queues.map((q) => q.name));
      if (!p.next) break;
      after = p.next;
    }
    expect(seen.filter((n) => n.endsWith("-first"))).toHaveLength(230);
    expect(seen).toContain("exports");
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual(seen);
    // A search finds a queue wherever it sorts, in one page.
    const found = await asStaff((tx) => listQueues(tx, { search: "EXPORT" }));
    expect(found.queues.map((q) => q.name)).toEqual(["exports"]);
    expect(found.next).toBeNull();
    expect((await asStaff((tx) => listQueues(tx, { search: "0012" }))).queues.map((q) => q.name)).toEqual([
      "00012-first",
      "00120-first",
      "00121-first",
      "00122-first",
      "00123-first",
      "00124-first",
      "00125-first",
      "00126-first",
      "00127-first",
      "00128-first",
      "00129-first",
    ]);
  });
});

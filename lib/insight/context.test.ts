import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { History, OPERATOR } from "../demo/history";
import { getJobDetail } from "../jobs/queries";
import { api } from "../jobs/test-helpers";
import { claimsOf } from "./explain";
import { checkExplanation } from "./check";
import { explainContext, explainJob } from "./context";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();
const MIN = 60_000;
const REPORT = { type: "report.generate", params: { report: "daily_usage", period: "2026-11" } } as const;
const queueName = () => `ctx-${Math.random().toString(36).slice(2, 8)}`;
const worker = async (id: string, queue: string, from: number, to: number) =>
  execute(
    t.pool,
    sql`INSERT INTO workers (id, host, pid, queues, concurrency, started_at, last_seen_at) VALUES (${id}, 'h', 1, ${sql.param([queue])}, 4, ${new Date(from)}, ${new Date(to)})`,
  );

describe("what the explanation reads about the rest of the system", () => {
  it("'no worker was serving the queue' only where no job of the queue was claimed, whatever the workers table says", async () => {
    const queue = queueName();
    const t0 = Date.now() - 60 * MIN;
    // The workers table knows only the worker that took the job, from 10 minutes before its claim.
    const w = `w-ctx-${queue}`;
    await worker(w, queue, t0 + 30 * MIN, t0 + 45 * MIN);
    const h = await new History(t.pool, t0).submit({ tenantId: "acme", ...REPORT, queue }, api);
    await (await h.run(w, 40 * MIN)).step("finish", MIN);
    const lonely = await explainJob(t.pool, h.id, { audience: "staff" });
    expect(claimsOf(lonely!.explanation.claims, "no_worker").map((c) => [c.from - t0, c.to - t0])).toEqual([[0, 30 * MIN]]);
    // Another job of the queue claimed 20 minutes in, by a worker the table does not hold: a worker was there.
    const other = await new History(t.pool, t0 + 5 * MIN).submit({ tenantId: "acme", ...REPORT, queue }, api);
    await (await other.run("w-ctx-unlisted", 15 * MIN)).step("finish", MIN);
    const seen = await explainJob(t.pool, h.id, { audience: "staff" });
    expect(claimsOf(seen!.explanation.claims, "no_worker").map((c) => [c.from - t0, c.to - t0])).toEqual([]);
    expect(await checkExplanation(t.pool, h.id, seen!.explanation)).toEqual([]);
  });

  it("a finished job's comparison does not move when jobs of its type finish later", async () => {
    const type = { ...REPORT, queue: queueName() };
    const t0 = Date.now() - 3 * 60 * MIN;
    // Thirty of its type that succeeded before it was submitted: 2 minutes each.
    for (let i = 0; i < 30; i++)
      await (await (await new History(t.pool, t0 + i * 1000).submit({ tenantId: "globex", ...type }, api)).run("w-b", 1000)).step("finish", 2 * MIN);
    const h = await new History(t.pool, t0 + 60 * MIN).submit({ tenantId: "globex", ...type }, api);
    await (await h.run("w-b", MIN)).step("finish", 5 * MIN);
    const before = (await explainJob(t.pool, h.id, { audience: "staff" }))!.context.baselines;
    // Thirty more finish after it, much slower: a sample of "the newest finished" would now be theirs.
    for (let i = 0; i < 30; i++)
      await (
        await (await new History(t.pool, t0 + 61 * MIN + i * 1000).submit({ tenantId: "globex", ...type }, api)).run("w-b", 1000)
      ).step("finish", 60 * MIN);
    const after = (await explainJob(t.pool, h.id, { audience: "staff" }))!.context.baselines;
    expect(after).toEqual(before);
    expect(before[0]).toMatchObject({ n: 30, run: { p50: 2 * MIN, p95: 2 * MIN } });
  });

  it("a queue at its limit is read from its jobs at work, and a paused job holds no slot", async () => {
    const queue = queueName();
    const t0 = Date.now() - 60 * MIN;
    await execute(
      t.pool,
      sql`INSERT INTO queue_events (queue, event, value, actor_kind, actor_id, at) VALUES (${queue}, 'limit', 2, 'operator', ${OPERATOR.id}, ${new Date(t0 - MIN)})`,
    );
    // Two at work from 0 to 20 min; a third job paused from 1 min on holds no slot.
    for (const [start, run] of [
      [0, 20],
      [0, 20],
      [0, 40],
    ] as const) {
      const x = await new History(t.pool, t0 + start * MIN).submit({ tenantId: "acme", ...REPORT, queue }, api);
      await x.run("w-lim", 0, 0);
      if (run === 40) await (await x.step("pause", MIN, OPERATOR)).step("resume", 30 * MIN, OPERATOR);
      await x.step("finish", run === 40 ? 9 * MIN : run * MIN);
    }
    // The subject waited from 5 to 25 min: at the limit until 20.
    const h = await new History(t.pool, t0 + 5 * MIN).submit({ tenantId: "acme", ...REPORT, queue }, api);
    await (await h.run("w-lim", 20 * MIN, 0)).step("finish", MIN);
    const { explanation } = (await explainJob(t.pool, h.id, { audience: "staff" }))!;
    expect(claimsOf(explanation.claims, "queue_limit").map((c) => [c.limit, c.waitedMs])).toEqual([[2, 15 * MIN]]);
    expect(await checkExplanation(t.pool, h.id, explanation)).toEqual([]);
  });

  it("a tenant's context names no other tenant, no staff member and no other job", async () => {
    const queue = queueName();
    const t0 = Date.now() - 30 * MIN;
    await execute(
      t.pool,
      sql`INSERT INTO queue_events (queue, event, actor_kind, actor_id, at) VALUES (${queue}, 'pause', 'operator', ${OPERATOR.id}, ${new Date(t0 - MIN)}), (${queue}, 'resume', 'operator', ${OPERATOR.id}, ${new Date(t0 + MIN)})`,
    );
    for (let i = 0; i < 3; i++) await new History(t.pool, t0 - 1000 + i).submit({ tenantId: "globex", ...REPORT, queue }, api);
    const h = await new History(t.pool, t0).submit({ tenantId: "acme", ...REPORT, queue }, api);
    await (await h.run("w-t", 5 * MIN)).step("finish", MIN);
    const detail = await getJobDetail(t.pool, h.id);
    const tenant = await explainContext(t.pool, detail!, { tenantOnly: true });
    const text = JSON.stringify(tenant);
    for (const hidden of ["globex", OPERATOR.id, "w-t"]) expect(text).not.toContain(hidden);
    expect(tenant.ahead).toEqual({ n: 3, capped: false, own: null });
    expect(tenant.baselines.map((b) => b.scope.tenantId)).toEqual(["acme"]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type Sql } from "../db/client";
import { createTestDb, type TestDb } from "../db/test-db";
import { eventsFor } from "../fsm/machine";
import { TERMINAL_STATES, type JobState } from "../fsm/table";
import { enqueue } from "../jobs/enqueue";
import { auditJob, seedTenants } from "../jobs/test-helpers";
import { transition } from "../jobs/transition";
import { createSupervisor } from "../supervisor/supervisor";
import { PermanentError, silentLogger, type Handlers } from "../worker";
import { createWorker } from "../worker/worker";

// Several workers (one of them too slow to heartbeat in time), two supervisors,
// a producer and a random canceller/replayer run at once on real connections.
// Afterwards every job must still agree with its own history.
const SOAK_MS = Number(process.env.SOAK_MS ?? 15_000);
const QUEUES = ["soak-a", "soak-b"];

class UpstreamTimeout extends Error {
  override name = "UpstreamTimeout";
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rand = (lo: number, hi: number) => lo + Math.random() * (hi - lo);

function handlers(slow: boolean): Handlers {
  const work = async (ctx: { checkpoint(): Promise<void> }) => {
    for (let i = 0; i < 3; i++) {
      await sleep(slow ? rand(150, 500) : rand(2, 30));
      await ctx.checkpoint();
    }
  };
  return {
    "report.generate": async (ctx) => {
      await work(ctx);
      return { ok: true };
    },
    "upstream.call": async (ctx) => {
      await work(ctx);
      const x = Math.random();
      if (x < ctx.job.params.timeoutRate) throw new UpstreamTimeout("partner timed out");
      if (x < ctx.job.params.timeoutRate + 0.05) throw new PermanentError("partner said 410 Gone");
      return { ok: true };
    },
  };
}

async function produce(sql: Sql, n: number) {
  for (let i = 0; i < n; i++) {
    const tenantId = i % 2 ? "acme" : "globex";
    const queue = QUEUES[i % QUEUES.length]!;
    const input =
      i % 3 === 0
        ? { tenantId, type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue, maxAttempts: 3 }
        : { tenantId, type: "upstream.call", params: { endpoint: "https://partner.example", timeoutRate: 0.3 }, queue, maxAttempts: 4 };
    await enqueue(sql, input, { kind: "api", id: "soak" });
  }
}

/** An operator and a tenant clicking buttons on pages that may be stale. */
async function chaos(sql: Sql, until: () => boolean, counts: Record<string, number>) {
  while (!until()) {
    const [job] = await sql<{ id: string; state: JobState; stateVersion: number }[]>`
      SELECT id, state, state_version FROM jobs WHERE state <> 'succeeded' ORDER BY random() LIMIT 1`;
    if (!job) continue;
    await sleep(rand(0, 15)); // the page was rendered a moment ago
    const actor = Math.random() < 0.8 ? { kind: "operator" as const, id: "op-chaos" } : { kind: "tenant" as const, id: "tenant-chaos" };
    const choices = eventsFor(job.state, actor.kind);
    const event = choices[Math.floor(Math.random() * choices.length)];
    if (!event) continue;
    const r = await transition(sql, { jobId: job.id, event, actor, expected: { state: job.state, version: job.stateVersion } });
    const key = r.ok ? `applied:${event}` : `refused:${r.kind}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
}

let t: TestDb;
const pools: Sql[] = [];
beforeAll(async () => {
  t = await createTestDb({ max: 6 });
  await seedTenants(t.sql);
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end({ timeout: 5 })));
  await t.close();
});

describe("soak", () => {
  it(
    "leaves every job consistent with its event log",
    async () => {
      const own = (max: number) => {
        const p = connect(t.url, { max });
        pools.push(p);
        return p;
      };
      await produce(t.sql, 600);
      const workers = [
        ...[1, 2, 3].map((i) => createWorker({ sql: own(6), id: `w-${i}`, queues: QUEUES, concurrency: 6, handlers: handlers(false), heartbeatIntervalMs: 100, pollIntervalMs: 100, drainTimeoutMs: 1_000, retry: { baseMs: 20, capMs: 200, jitter: 0.5 }, log: silentLogger })),
        // Beats far too rarely for the supervisors' threshold: its jobs are reclaimed under it.
        createWorker({ sql: own(4), id: "w-slow", queues: QUEUES, concurrency: 3, handlers: handlers(true), heartbeatIntervalMs: 3_000, pollIntervalMs: 100, drainTimeoutMs: 1_000, retry: { baseMs: 20, capMs: 200, jitter: 0.5 }, log: silentLogger }),
      ];
      const supervisors = ["sup-a", "sup-b"].map((id) => createSupervisor({ sql: own(3), id, staleAfterMs: 600, intervalMs: 50 }));
      const deadline = Date.now() + SOAK_MS;
      const chaosCounts: Record<string, number> = {};
      await Promise.all(workers.map((w) => w.start()));
      supervisors.forEach((s) => s.start());
      await Promise.all([
        chaos(own(2), () => Date.now() > deadline, chaosCounts),
        chaos(own(2), () => Date.now() > deadline, chaosCounts),
        (async () => {
          while (Date.now() < deadline - 2_000) {
            await produce(t.sql, 20);
            await sleep(200);
          }
        })(),
      ]);
      await Promise.all(workers.map((w) => w.stop()));
      await Promise.all(supervisors.map((s) => s.stop()));

      const ids = await t.sql<{ id: string }[]>`SELECT id FROM jobs`;
      const problems: string[] = [];
      for (const { id } of ids) problems.push(...(await auditJob(t.sql, id)));

      const [leftTerminal] = await t.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM job_events WHERE from_state IN ${t.sql(TERMINAL_STATES)} AND event <> 'replay'`;
      const [strayRuns] = await t.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM job_runs r JOIN jobs j ON j.id = r.job_id
         WHERE (r.outcome IS NULL) <> (j.state IN ('claimed', 'running', 'paused', 'cancelling') AND r.attempt = j.attempt)`;
      const [gaps] = await t.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM jobs j WHERE (SELECT count(*) FROM job_events e WHERE e.job_id = j.id) <> j.state_version + 1`;
      const rejections = await t.sql<{ kind: string; n: number }[]>`
        SELECT kind, count(*)::int AS n FROM transition_rejections GROUP BY kind ORDER BY kind`;
      const byKind = Object.fromEntries(rejections.map((r) => [r.kind, r.n]));
      const detail = await t.sql<{ key: string; n: number }[]>`
        SELECT kind || ':' || actor_kind || ':' || event AS key, count(*)::int AS n FROM transition_rejections GROUP BY 1 ORDER BY 2 DESC`;
      const illegal = await t.sql<{ reason: string }[]>`SELECT reason FROM transition_rejections WHERE kind = 'illegal' LIMIT 5`;
      const states = await t.sql<{ state: string; n: number }[]>`SELECT state, count(*)::int AS n FROM jobs GROUP BY state ORDER BY state`;
      const outcomes = await t.sql<{ outcome: string; n: number }[]>`
        SELECT coalesce(outcome::text, 'open') AS outcome, count(*)::int AS n FROM job_runs GROUP BY 1 ORDER BY 1`;
      const [events] = await t.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM job_events`;
      const figures = {
        seconds: SOAK_MS / 1000,
        jobs: ids.length,
        transitions: events?.n,
        rejections: Object.fromEntries(detail.map((d) => [d.key, d.n])),
        illegalReasons: illegal.map((i) => i.reason),
        states: Object.fromEntries(states.map((s) => [s.state, s.n])),
        runs: Object.fromEntries(outcomes.map((o) => [o.outcome, o.n])),
        chaos: chaosCounts,
        violations: problems.length + (leftTerminal?.n ?? 0) + (strayRuns?.n ?? 0) + (gaps?.n ?? 0) + (byKind.drift ?? 0),
      };
      console.log(`SOAK ${JSON.stringify(figures)}`);

      expect(problems).toEqual([]);
      expect(leftTerminal?.n).toBe(0);
      expect(strayRuns?.n).toBe(0);
      expect(gaps?.n).toBe(0);
      expect(byKind.drift ?? 0).toBe(0);
      // The soak must actually have exercised the races it is meant to survive.
      expect(figures.runs.lease_expired ?? 0).toBeGreaterThan(0);
      expect(byKind.conflict ?? 0).toBeGreaterThan(0);
      expect(Object.keys(chaosCounts).filter((k) => k.startsWith("applied:")).length).toBeGreaterThan(3);
      expect(figures.states.succeeded ?? 0).toBeGreaterThan(100);
      // Jobs died (the chaos replays many of them, so count the abandon events, not the dead rows).
      const [abandons] = await t.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM job_events WHERE event = 'abandon'`;
      expect(abandons?.n ?? 0).toBeGreaterThan(0);
    },
    SOAK_MS + 120_000,
  );
});

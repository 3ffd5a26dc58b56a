import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { setupTestDb } from "../db/test-db";
import { apply, submitted, type JobSnapshot } from "../fsm/machine";
import type { ActorKind, JobEvent } from "../fsm/table";
import { heartbeat } from "../jobs/heartbeat";
import { checkJobIntegrity, eventsOf, getJob, newJob, runJob } from "../jobs/test-helpers";
import { transition } from "../jobs/transition";
import { createSupervisor } from "../supervisor/supervisor";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// fast-check's scheduler decides in which order concurrent commands on one running job
// are issued (each on its own connection, so they really race in PostgreSQL). Whatever
// the order: the log replays to the row, each applied result is one logged event, and of
// the writers that read the same version at most one wins.
const RUNS = Number(process.env.INTERLEAVING_RUNS ?? 40);
const STALE_MS = 10_000;

type Op = { name: string; expectsV2: boolean; run: (db: Db, id: string) => Promise<{ ok: boolean; event?: JobEvent; actor?: ActorKind }> };

const person = (kind: "operator" | "tenant", event: JobEvent): Op => ({
  name: `${kind} ${event}`,
  expectsV2: true,
  run: async (db, id) => {
    const r = await transition(db, { jobId: id, event, actor: { kind, id: `il-${kind}` }, expected: { state: "running", version: 2 } });
    return { ok: r.ok, event, actor: kind };
  },
});
const workerOp = (event: JobEvent): Op => ({
  name: `worker ${event}`,
  expectsV2: false,
  run: async (db, id) => {
    const r = await transition(db, {
      jobId: id,
      event,
      actor: { kind: "worker", id: "w-1" },
      attempt: 1,
      ...(event === "fail" && { retryAt: new Date(Date.now() + 60_000), error: { class: "E", message: "x" } }),
    });
    return { ok: r.ok, event, actor: "worker" };
  },
});
const OPS: Op[] = [
  workerOp("finish"),
  workerOp("fail"),
  workerOp("stop"),
  person("operator", "cancel"),
  person("operator", "pause"),
  person("tenant", "cancel"),
  {
    name: "supervisor tick",
    expectsV2: true,
    run: async (db, id) => {
      // The tick also sees other runs' stale jobs: whether it moved this one is in this job's log.
      await createSupervisor({ db, id: "il-sup", staleAfterMs: STALE_MS, batch: 10_000 }).tick();
      const [e] = await execute<{ event: JobEvent }>(db, sql`SELECT event FROM job_events WHERE job_id = ${id} AND actor_kind = 'supervisor'`);
      return { ok: !!e, event: e?.event, actor: "supervisor" };
    },
  },
  {
    name: "heartbeat",
    expectsV2: false,
    run: async (db, id) => {
      await heartbeat(db, { workerId: "w-1", jobs: [{ id, attempt: 1 }] });
      return { ok: false };
    },
  },
];

const t = setupTestDb();
const conns = OPS.map(() => t.connect({ max: 1 }));
const seen: Record<string, number> = {};
afterAll(() => {
  console.log(`INTERLEAVINGS ${JSON.stringify({ runs: RUNS, finalStates: seen })}`);
});

describe("interleavings (fast-check scheduler)", () => {
  it("keep every job consistent whatever the order of concurrent worker, supervisor, operator and tenant writes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.subarray(
          OPS.map((_, i) => i),
          { minLength: 2 },
        ),
        fc.boolean(),
        async (s, picked, stale) => {
          const job = await runJob(t.pool, await newJob(t.pool));
          if (stale) await execute(t.pool, sql`UPDATE jobs_live SET heartbeat_at = now() - interval '1 minute' WHERE id = ${job.id}`);
          // Each command starts when the scheduler releases it; they then run concurrently.
          const results = await Promise.all([
            ...picked.map((i) =>
              s.schedule(Promise.resolve(OPS[i]!.name)).then(() => OPS[i]!.run(conns[i]!, job.id).then((r) => ({ op: OPS[i]!, ...r }))),
            ),
            s.waitAll().then(() => null),
          ]);
          const done = results.filter((r) => r !== null);
          expect(await checkJobIntegrity(t.pool, job.id)).toEqual([]);
          const row = await getJob(t.pool, job.id);
          const events = await eventsOf(t.pool, job.id);
          // Each applied command is exactly one logged event after submit, claim and start.
          const applied = done.filter((r) => r.ok);
          expect(
            events
              .slice(3)
              .map((e) => `${e.actorKind}:${e.event}`)
              .sort(),
          ).toEqual(applied.map((r) => `${r.actor}:${r.event}`).sort());
          // Writers that read version 2 race for it: at most one wins. (The supervisor reads the version
          // when it scans: it raced for version 2 only if its move is version 3; after an operator's
          // cancel it may rightly reclaim the cancelling job at version 4.)
          const supervisorV3 = events.some((e) => e.actorKind === "supervisor" && e.stateVersion === 3);
          expect(applied.filter((r) => r.op.expectsV2 && (r.actor !== "supervisor" || supervisorV3)).length).toBeLessThanOrEqual(1);
          // The model: applying the logged events in order to a fresh job gives the row.
          let m: JobSnapshot = submitted(row.maxAttempts);
          for (const e of events.slice(1)) m = apply(m, e.event, e.actorKind);
          expect({ state: m.state, attempt: m.attempt, version: m.stateVersion }).toEqual({
            state: row.state,
            attempt: row.attempt,
            version: row.stateVersion,
          });
          seen[row.state] = (seen[row.state] ?? 0) + 1;
        },
      ),
      { numRuns: RUNS },
    );
  }, 60_000);
});

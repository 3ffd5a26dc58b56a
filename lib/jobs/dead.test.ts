import { beforeAll, describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { listDeadGroupIds, listDeadGroups, listDeadJobs, type DeadGroup } from "./dead";
import { newJob, operator, runJob, supervisor, worker } from "./test-helpers";
import { transition } from "./transition";
import type { JobRow } from "./types";

const t = setupTestDb();

const OOM = { class: "OutOfMemoryError", message: "render worker exceeded its 2 GiB memory limit" };
const TIMEOUT = { class: "UpstreamTimeout", message: "POST /sync timed out after 30000 ms" };

async function ok(r: Promise<Awaited<ReturnType<typeof transition>>>): Promise<JobRow> {
  const res = await r;
  if (!res.ok) throw new Error(res.reason);
  return res.job;
}

/** A job run once by `w` and abandoned by it: dead, its last run carrying `error` (or none). */
async function killJob(opts: { tenantId?: string; error?: { class: string; message: string } } = {}) {
  const job = await runJob(t.pool, await newJob(t.pool, { tenantId: opts.tenantId, maxAttempts: 2 }));
  return ok(transition(t.pool, { jobId: job.id, event: "abandon", actor: worker(), attempt: job.attempt, error: opts.error }));
}

/** Fails with a timeout on attempt 1, is retried, then dies of OOM on attempt 2. */
async function timeoutThenOom() {
  let job = await runJob(t.pool, await newJob(t.pool, { maxAttempts: 2 }));
  await ok(transition(t.pool, { jobId: job.id, event: "fail", actor: worker(), attempt: 1, error: TIMEOUT, retryAt: new Date() }));
  await ok(transition(t.pool, { jobId: job.id, event: "retry", actor: supervisor }));
  job = await runJob(t.pool, job);
  return ok(transition(t.pool, { jobId: job.id, event: "abandon", actor: worker(), attempt: 2, error: OOM }));
}

const key = (g: Pick<DeadGroup, "type" | "errorClass">) => `${g.type}/${g.errorClass ?? "(no error)"}`;
const REPORT = "report.generate";

describe("dead jobs", () => {
  const made: { oom: JobRow[]; timeout: JobRow[]; none: JobRow[]; globex: JobRow[] } = { oom: [], timeout: [], none: [], globex: [] };

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) made.timeout.push(await killJob({ error: TIMEOUT }));
    made.none.push(await killJob());
    for (let i = 0; i < 2; i++) made.oom.push(await timeoutThenOom());
    made.globex.push(await killJob({ tenantId: "globex", error: OOM }));
    // Dead, then replayed: no longer dead, so in no group.
    const replayed = await killJob({ error: TIMEOUT });
    await ok(transition(t.pool, { jobId: replayed.id, event: "replay", actor: operator }));
    // Failed once and waiting for its retry: not dead.
    const waiting = await runJob(t.pool, await newJob(t.pool));
    await ok(
      transition(t.pool, {
        jobId: waiting.id,
        event: "fail",
        actor: worker(),
        attempt: 1,
        error: TIMEOUT,
        retryAt: new Date(Date.now() + 3_600_000),
      }),
    );
  });

  it("groups by type and the class of the run that killed the job, newest group first", async () => {
    const { groups, capped } = await listDeadGroups(t.pool);
    expect(capped).toBe(false);
    expect(groups.map(key)).toEqual([`${REPORT}/OutOfMemoryError`, `${REPORT}/(no error)`, `${REPORT}/UpstreamTimeout`]);
    const [oom, none, timeout] = groups;
    // Both OOM deaths first timed out: they count under OOM only, and the globex one joins them.
    expect(oom?.count).toBe(3);
    expect(timeout?.count).toBe(3);
    expect(none).toMatchObject({ count: 1, sampleMessage: null });
    expect(oom?.sampleMessage).toBe(OOM.message);
    expect(oom?.lastSeen).toEqual(made.globex[0]!.finishedAt);
    expect(oom?.firstSeen).toEqual(made.oom[0]!.finishedAt);
    expect(timeout?.queues).toEqual(made.timeout.map((j) => j.queue).sort());
  });

  it("scopes groups to a tenant and to deaths since a time", async () => {
    expect((await listDeadGroups(t.pool, { tenant: "globex" })).groups.map((g) => [key(g), g.count])).toEqual([[`${REPORT}/OutOfMemoryError`, 1]]);
    const since = made.oom[1]!.finishedAt!;
    const recent = await listDeadGroups(t.pool, { since });
    expect(recent.groups.map((g) => [key(g), g.count])).toEqual([[`${REPORT}/OutOfMemoryError`, 2]]);
    expect(await listDeadGroups(t.pool, { tenant: "no-such-tenant" })).toEqual({ groups: [], capped: false });
  });

  it("counts over the newest dead jobs only when there are more than the cap, and says so", async () => {
    const { groups, capped } = await listDeadGroups(t.pool, { cap: 3 });
    expect(capped).toBe(true);
    // The three newest deaths are the globex OOM and the two acme OOMs; the older groups are not reached.
    expect(groups.map((g) => [key(g), g.count])).toEqual([[`${REPORT}/OutOfMemoryError`, 3]]);
    expect((await listDeadGroups(t.pool, { cap: 7 })).capped).toBe(false);
  });

  it("lists a group's jobs with their last error, newest first, by keyset pages", async () => {
    const all = [...made.oom, ...made.globex].reverse();
    const p1 = await listDeadJobs(t.pool, { type: REPORT, errorClass: "OutOfMemoryError", limit: 2 });
    expect(p1.jobs.map((j) => j.id)).toEqual(all.slice(0, 2).map((j) => j.id));
    expect(p1.jobs[0]).toMatchObject({ tenantId: "globex", errorClass: "OutOfMemoryError", errorMessage: OOM.message, attempt: 1 });
    expect(p1.jobs[1]).toMatchObject({ attempt: 2, maxAttempts: 2 });
    const p2 = await listDeadJobs(t.pool, { type: REPORT, errorClass: "OutOfMemoryError", limit: 2, cursor: p1.next });
    expect(p2.jobs.map((j) => j.id)).toEqual([all[2]!.id]);
    expect(p2.next).toBeNull();
  });

  it("lists the (no error) group, and the timeout group without the jobs it did not kill", async () => {
    const none = await listDeadJobs(t.pool, { type: REPORT, errorClass: null });
    expect(none.jobs.map((j) => j.id)).toEqual(made.none.map((j) => j.id));
    const timeout = await listDeadJobs(t.pool, { type: REPORT, errorClass: "UpstreamTimeout" });
    expect(timeout.jobs.map((j) => j.id).sort()).toEqual(made.timeout.map((j) => j.id).sort());
    expect(await listDeadJobs(t.pool, { type: "media.render", errorClass: "OutOfMemoryError" })).toEqual({ jobs: [], next: null });
  });

  it("freezes a group's ids up to a cap, within the same scope as its count", async () => {
    const g = { type: REPORT, errorClass: "OutOfMemoryError" };
    expect(await listDeadGroupIds(t.pool, { ...g, cap: 10 })).toEqual({
      ids: [...made.oom, ...made.globex].reverse().map((j) => j.id),
      capped: false,
    });
    expect((await listDeadGroupIds(t.pool, { ...g, cap: 2 })).capped).toBe(true);
    expect(await listDeadGroupIds(t.pool, { ...g, tenant: "acme", cap: 10 })).toEqual({
      ids: [...made.oom].reverse().map((j) => j.id),
      capped: false,
    });
  });

  it("counts a job replayed and dead again once, in the group of its last death, at its last death", async () => {
    const twice = await killJob({ tenantId: "globex", error: TIMEOUT });
    await ok(transition(t.pool, { jobId: twice.id, event: "replay", actor: operator }));
    const again = await ok(
      transition(t.pool, { jobId: twice.id, event: "abandon", actor: worker(), attempt: (await runJob(t.pool, twice)).attempt, error: OOM }),
    );
    const { groups } = await listDeadGroups(t.pool, { tenant: "globex" });
    expect(groups.map((g) => [key(g), g.count])).toEqual([[`${REPORT}/OutOfMemoryError`, 2]]);
    expect(groups[0]?.lastSeen).toEqual(again.finishedAt);
    const page = await listDeadJobs(t.pool, { type: REPORT, errorClass: "OutOfMemoryError", tenant: "globex" });
    expect(page.jobs.map((j) => [j.id, j.attempt, j.stateVersion])).toEqual([
      [twice.id, 2, again.stateVersion],
      [made.globex[0]!.id, 1, made.globex[0]!.stateVersion],
    ]);
    expect((await listDeadGroupIds(t.pool, { type: REPORT, errorClass: "UpstreamTimeout", tenant: "globex", cap: 10 })).ids).toEqual([]);
  });

  it("ignores a malformed cursor and clamps the page size", async () => {
    const p = await listDeadJobs(t.pool, { type: REPORT, errorClass: "UpstreamTimeout", cursor: "garbage", limit: 10_000 });
    expect(p.jobs).toHaveLength(3);
  });
});

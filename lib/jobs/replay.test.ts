import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { startBulk, runBulkOperation } from "./bulk";
import { claim } from "./claim";
import { checkReplayParams, currentParams, describeDiff, paramsDiff, replayRisks } from "./replay";
import { newJob, operator, runJob, supervisor, worker } from "./test-helpers";
import { transition } from "./transition";
import type { JobRow } from "./types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();

/** A job that ran once and died as `how` says. */
async function dead(how: "permanent" | "exhausted" | "poison" | "given_up", maxAttempts = 3): Promise<JobRow> {
  let job = await newJob(t.pool, { maxAttempts: how === "exhausted" ? 1 : maxAttempts });
  job = await runJob(t.pool, job);
  const move =
    how === "poison"
      ? { event: "abandon" as const, actor: supervisor, error: { class: "PoisonJob", message: "took its worker down" } }
      : how === "given_up"
        ? { event: "pause" as const, actor: operator }
        : {
            event: "abandon" as const,
            actor: worker(),
            attempt: job.attempt,
            error: { class: how === "permanent" ? "PermanentError" : "UpstreamTimeout", message: "no" },
          };
  const r = await transition(t.pool, { jobId: job.id, ...move });
  if (!r.ok) throw new Error(r.reason);
  if (how === "given_up") {
    const a = await transition(t.pool, { jobId: job.id, event: "abandon", actor: operator });
    if (!a.ok) throw new Error(a.reason);
    return a.job;
  }
  return r.job;
}

describe("a replay's dry run says what to expect", () => {
  it("counts poison jobs and permanent errors, and how many attempts a replay gives", async () => {
    const [permanent, exhausted, poison, givenUp] = [
      await dead("permanent"),
      await dead("exhausted"),
      await dead("poison"),
      await dead("given_up", 5),
    ];
    expect(await replayRisks(t.pool, [permanent.id])).toEqual({ poison: 0, permanent: 1, oneMore: 0, keepLeft: { jobs: 1, most: 2 } });
    expect(await replayRisks(t.pool, [exhausted.id])).toEqual({ poison: 0, permanent: 0, oneMore: 1, keepLeft: { jobs: 0, most: 0 } });
    expect(await replayRisks(t.pool, [poison.id]).then((r) => r.poison)).toBe(1);
    // A suspect too: two attempts that lost their worker (the list's poison badge), the last one stale.
    let lost = await newJob(t.pool, { maxAttempts: 2 });
    for (const event of ["reclaim", "abandon"] as const) {
      lost = await runJob(t.pool, lost);
      const r = await transition(t.pool, { jobId: lost.id, event, actor: supervisor, error: { class: "LeaseExpired", message: "no heartbeat" } });
      if (!r.ok) throw new Error(r.reason);
      lost = r.job;
    }
    expect(await replayRisks(t.pool, [lost.id])).toMatchObject({ poison: 1, permanent: 0 });
    // An operator's abandon is no permanent error: the job keeps its attempts.
    expect(await replayRisks(t.pool, [givenUp.id])).toEqual({ poison: 0, permanent: 0, oneMore: 0, keepLeft: { jobs: 1, most: 4 } });
    expect(await replayRisks(t.pool, [permanent.id, exhausted.id, poison.id, givenUp.id])).toMatchObject({ poison: 1, permanent: 1 });
  });
});

describe("edited params are checked like a new submission", () => {
  it("gives back the params with the type's defaults, or every problem by field", () => {
    expect(checkReplayParams("media.render", { assetId: "a-1", frames: 120 })).toEqual({
      ok: true,
      params: { assetId: "a-1", frames: 120, resolution: "1080p" },
    });
    const bad = checkReplayParams("media.render", { assetId: "", frames: 0, resolution: "8k", extra: 1 });
    expect(bad.ok).toBe(false);
    expect(bad.ok ? [] : bad.issues.map((i) => i.path).sort()).toEqual(["", "assetId", "frames", "resolution"]);
    // Jobscope's own jobs are replayed as they are.
    expect(checkReplayParams("jobscope.bulk", { operationId: "00000000-0000-0000-0000-000000000000" })).toMatchObject({ ok: false });
    expect(checkReplayParams("no.such.type", {})).toMatchObject({ ok: false });
  });

  it("says what changed, field by field", () => {
    const d = paramsDiff({ report: "daily_usage", period: "2026-11" }, { report: "daily_usage", period: "2026-12", extra: true });
    expect(d).toEqual([
      { path: "extra", from: undefined, to: true },
      { path: "period", from: "2026-11", to: "2026-12" },
    ]);
    expect(describeDiff(d)).toBe('extra (absent) → true; period "2026-11" → "2026-12"');
  });
});

describe("a replay with edited params", () => {
  it("runs the next attempt with them, keeps the submitted params in the catalog, and records them on the replay", async () => {
    const job = await dead("permanent");
    const edited = { report: "billing_summary", period: "2026-12" };
    const { operationId } = await startBulk(t.pool, {
      frozen: [{ id: job.id, state: "dead", version: job.stateVersion, params: edited }],
      event: "replay",
      actor: operator,
      description: `dead job ${job.id} with edited params`,
    });
    await runBulkOperation(t.pool, operationId);

    const [catalog] = await execute<{ params: unknown }>(t.pool, sql`SELECT params FROM job_catalog WHERE id = ${job.id}`);
    expect(catalog!.params).toEqual({ report: "daily_usage", period: "2026-11" });
    const [replay] = await execute<{ event: string; payload: { params: unknown } }>(
      t.pool,
      sql`
      SELECT event, payload FROM job_log WHERE job_id = ${job.id} AND event = 'replay'`,
    );
    expect(replay!.payload.params).toEqual(edited);
    expect(await currentParams(t.pool, job.id)).toMatchObject({ params: edited, editedAt: job.stateVersion + 1 });

    // The worker's claim hands out the edited params.
    const [claimed] = await claim(t.pool, { workerId: "w-edit", queues: [job.queue], limit: 1 });
    expect(claimed).toMatchObject({ id: job.id, attempt: 2, params: edited });
  });

  it("without an edit, replays with the params it last ran with", async () => {
    const job = await dead("exhausted");
    const { operationId } = await startBulk(t.pool, {
      frozen: [{ id: job.id, state: "dead", version: job.stateVersion }],
      event: "replay",
      actor: operator,
      description: "x",
    });
    await runBulkOperation(t.pool, operationId);
    const [claimed] = await claim(t.pool, { workerId: "w-plain", queues: [job.queue], limit: 1 });
    expect(claimed).toMatchObject({ id: job.id, params: { report: "daily_usage", period: "2026-11" } });
    expect(await currentParams(t.pool, job.id)).toMatchObject({ editedAt: null });
  });
});

import { describe, expect, it } from "vitest";
import type { ActorKind, JobEvent, JobState, RunOutcome } from "../fsm/table";
import { buildTimeline, summarizeTimeline, type Timeline, type TimelineEvent, type TimelineRun } from "./timeline";

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
const S = 1_000;

type Ev = TimelineEvent;
type Run = TimelineRun;

/**
 * A history written as the write path would log it: each step names the event,
 * the state it leads to and when (seconds after T0); attempts and versions follow.
 */
function history(steps: [JobEvent, JobState, number, string?][]): { events: Ev[]; runs: Run[] } {
  const events: Ev[] = [];
  const runs: Run[] = [];
  let attempt = 0;
  steps.forEach(([event, toState, atS, who], v) => {
    if (event === "claim") attempt++;
    const actorKind: ActorKind =
      event === "submit" ? "api" : ["claim", "start", "finish", "fail", "stop"].includes(event) ? "worker" : who ? "worker" : "supervisor";
    const actorId = event === "claim" ? (who ?? `w-${attempt}`) : actorKind === "worker" ? `w-${attempt}` : "sup-1";
    events.push({ event, toState, attempt, stateVersion: v, at: new Date(T0 + atS * S), actorKind, actorId });
    if (event === "claim") runs.push({ attempt, workerId: actorId, outcome: null });
  });
  return { events, runs };
}

const JOB = { createdAt: new Date(T0) };
const shape = (t: Timeline) =>
  t.lanes.map((l) => ({
    attempt: l.attempt,
    worker: l.worker,
    outcome: l.outcome,
    segments: l.segments.map((s) => [s.kind, (s.start - T0) / S, (s.end - T0) / S]),
  }));
const withOutcomes = (runs: Run[], ...outcomes: (RunOutcome | null)[]) => runs.map((r, i) => ({ ...r, outcome: outcomes[i] ?? null }));

describe("buildTimeline", () => {
  it("a clean success: the wait before the attempt, then claimed and running", () => {
    const { events, runs } = history([
      ["submit", "queued", 0],
      ["claim", "claimed", 5],
      ["start", "running", 6],
      ["finish", "succeeded", 16],
    ]);
    const t = buildTimeline(JOB, withOutcomes(runs, "succeeded"), events, T0 + 3_600 * S);
    expect(shape(t)).toEqual([
      { attempt: 0, worker: null, outcome: null, segments: [["queue_wait", 0, 5]] },
      {
        attempt: 1,
        worker: "w-1",
        outcome: "succeeded",
        segments: [
          ["claimed", 5, 6],
          ["running", 6, 16],
        ],
      },
    ]);
    expect(t).toMatchObject({ start: T0, end: T0 + 16 * S, isOngoing: false, isTruncated: false });
    const running = t.segments.find((s) => s.kind === "running");
    expect(running).toMatchObject({ durationMs: 10 * S, startEvent: "start", endEvent: "finish", isOngoing: false });
  });

  it("a retried job: the retry wait and the queue wait after it stay in the failed attempt's lane", () => {
    const { events, runs } = history([
      ["submit", "queued", 0],
      ["claim", "claimed", 1],
      ["start", "running", 2],
      ["fail", "retry_wait", 12],
      ["retry", "queued", 42],
      ["claim", "claimed", 45],
      ["start", "running", 46],
      ["finish", "succeeded", 50],
    ]);
    const t = buildTimeline(JOB, withOutcomes(runs, "failed", "succeeded"), events, T0);
    expect(shape(t)).toEqual([
      { attempt: 0, worker: null, outcome: null, segments: [["queue_wait", 0, 1]] },
      {
        attempt: 1,
        worker: "w-1",
        outcome: "failed",
        segments: [
          ["claimed", 1, 2],
          ["running", 2, 12],
          ["retry_wait", 12, 42],
          ["queue_wait", 42, 45],
        ],
      },
      {
        attempt: 2,
        worker: "w-2",
        outcome: "succeeded",
        segments: [
          ["claimed", 45, 46],
          ["running", 46, 50],
        ],
      },
    ]);
    expect(t.segments.find((s) => s.kind === "retry_wait")).toMatchObject({ startEvent: "fail", endEvent: "retry" });
    expect(summarizeTimeline(t)).toMatchObject({ totalMs: 50 * S, lostToExpiredLeasesMs: 0 });
    expect(summarizeTimeline(t).byKind).toMatchObject({ queue_wait: 4 * S, claimed: 2 * S, running: 14 * S, retry_wait: 30 * S });
  });

  it("a lease-expired attempt: its time counts as lost, and the reclaim starts a queue wait", () => {
    const { events, runs } = history([
      ["submit", "queued", 0],
      ["claim", "claimed", 2, "w-14"],
      ["start", "running", 3],
      ["reclaim", "queued", 63],
      ["claim", "claimed", 64, "w-03"],
      ["start", "running", 65],
      ["finish", "succeeded", 75],
    ]);
    const t = buildTimeline(JOB, withOutcomes(runs, "lease_expired", "succeeded"), events, T0);
    expect(shape(t)).toEqual([
      { attempt: 0, worker: null, outcome: null, segments: [["queue_wait", 0, 2]] },
      {
        attempt: 1,
        worker: "w-14",
        outcome: "lease_expired",
        segments: [
          ["claimed", 2, 3],
          ["running", 3, 63],
          ["queue_wait", 63, 64],
        ],
      },
      {
        attempt: 2,
        worker: "w-03",
        outcome: "succeeded",
        segments: [
          ["claimed", 64, 65],
          ["running", 65, 75],
        ],
      },
    ]);
    expect(t.segments.find((s) => s.startEvent === "reclaim")).toMatchObject({ kind: "queue_wait", worker: "w-14" });
    expect(summarizeTimeline(t).lostToExpiredLeasesMs).toBe(61 * S);
  });

  it("time paused in an attempt that later lost its lease shows as paused, not as lost", () => {
    const { events, runs } = history([
      ["submit", "queued", 0],
      ["claim", "claimed", 1],
      ["start", "running", 2],
      ["pause", "paused", 12],
      ["resume", "running", 72],
      ["reclaim", "queued", 102],
    ]);
    const spent = summarizeTimeline(buildTimeline(JOB, withOutcomes(runs, "lease_expired"), events, T0 + 110 * S));
    expect(spent.lostToExpiredLeasesMs).toBe((1 + 10 + 30) * S);
    expect(spent.byKind.paused).toBe(60 * S);
  });

  it("a paused job: paused between two running segments, the last still going on", () => {
    const { events, runs } = history([
      ["submit", "queued", 0],
      ["claim", "claimed", 1],
      ["start", "running", 2],
      ["pause", "paused", 10],
      ["resume", "running", 70],
    ]);
    const now = T0 + 100 * S;
    const t = buildTimeline(JOB, runs, events, now);
    expect(shape(t)[1]).toEqual({
      attempt: 1,
      worker: "w-1",
      outcome: "open",
      segments: [
        ["claimed", 1, 2],
        ["running", 2, 10],
        ["paused", 10, 70],
        ["running", 70, 100],
      ],
    });
    expect(t.isOngoing).toBe(true);
    expect(t.end).toBe(now);
    expect(t.segments.at(-1)).toMatchObject({ isOngoing: true, endEvent: null, durationMs: 30 * S });
  });

  it("a replayed dead job: the time dead ends at the replay, then a new attempt", () => {
    const { events, runs } = history([
      ["submit", "queued", 0],
      ["claim", "claimed", 1],
      ["start", "running", 2],
      ["abandon", "dead", 5, "w-1"],
      ["replay", "queued", 3_605],
      ["claim", "claimed", 3_606],
      ["start", "running", 3_607],
      ["finish", "succeeded", 3_610],
    ]);
    const t = buildTimeline(JOB, withOutcomes(runs, "failed", "succeeded"), events, T0);
    expect(shape(t).slice(1)).toEqual([
      {
        attempt: 1,
        worker: "w-1",
        outcome: "failed",
        segments: [
          ["claimed", 1, 2],
          ["running", 2, 5],
          ["dead", 5, 3_605],
          ["queue_wait", 3_605, 3_606],
        ],
      },
      {
        attempt: 2,
        worker: "w-2",
        outcome: "succeeded",
        segments: [
          ["claimed", 3_606, 3_607],
          ["running", 3_607, 3_610],
        ],
      },
    ]);
    expect(t.segments.find((s) => s.kind === "dead")).toMatchObject({ startEvent: "abandon", endEvent: "replay" });
  });

  it("a dead job nobody replayed has ended: no open segment", () => {
    const { events, runs } = history([
      ["submit", "queued", 0],
      ["claim", "claimed", 1],
      ["start", "running", 2],
      ["abandon", "dead", 5, "w-1"],
    ]);
    const t = buildTimeline(JOB, withOutcomes(runs, "failed"), events, T0 + 999 * S);
    expect(t.isOngoing).toBe(false);
    expect(t.end).toBe(T0 + 5 * S);
    expect(t.segments.map((s) => s.kind)).toEqual(["queue_wait", "claimed", "running"]);
  });

  it("a job still running: the running segment reaches now and the attempt is open", () => {
    const { events, runs } = history([
      ["submit", "queued", 0],
      ["claim", "claimed", 3],
      ["start", "running", 4],
    ]);
    const t = buildTimeline(JOB, runs, events, T0 + 64 * S);
    expect(shape(t)[1]).toEqual({
      attempt: 1,
      worker: "w-1",
      outcome: "open",
      segments: [
        ["claimed", 3, 4],
        ["running", 4, 64],
      ],
    });
    expect(t).toMatchObject({ isOngoing: true, end: T0 + 64 * S });
  });

  it("a job still queued: one lane, the wait so far", () => {
    const { events } = history([["submit", "queued", 0]]);
    const t = buildTimeline(JOB, [], events, T0 + 9 * S);
    expect(shape(t)).toEqual([{ attempt: 0, worker: null, outcome: null, segments: [["queue_wait", 0, 9]] }]);
  });

  it("ten attempts give eleven lanes, in attempt order, whatever the order of the log", () => {
    const steps: [JobEvent, JobState, number][] = [["submit", "queued", 0]];
    for (let i = 0; i < 10; i++) {
      steps.push(["claim", "claimed", i * 10 + 1], ["start", "running", i * 10 + 2]);
      steps.push(i < 9 ? ["fail", "retry_wait", i * 10 + 5] : ["finish", "succeeded", i * 10 + 5]);
      if (i < 9) steps.push(["retry", "queued", i * 10 + 9]);
    }
    const { events, runs } = history(steps);
    const t = buildTimeline(JOB, runs, [...events].reverse(), T0);
    expect(t.lanes.map((l) => l.attempt)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(t.lanes[10]?.segments.map((s) => s.kind)).toEqual(["claimed", "running"]);
  });

  it("only the newest events loaded: says so, and still draws what it has", () => {
    const { events, runs } = history([
      ["submit", "queued", 0],
      ["claim", "claimed", 1],
      ["start", "running", 2],
      ["finish", "succeeded", 3],
    ]);
    const t = buildTimeline(JOB, withOutcomes(runs, "succeeded"), events.slice(2), T0);
    expect(t.isTruncated).toBe(true);
    expect(shape(t)).toEqual([{ attempt: 1, worker: "w-1", outcome: "succeeded", segments: [["running", 2, 3]] }]);
  });

  it("a clock behind the last event never gives a negative duration", () => {
    const { events, runs } = history([
      ["submit", "queued", 0],
      ["claim", "claimed", 10],
    ]);
    const t = buildTimeline(JOB, runs, events, T0 + 5 * S);
    expect(t.segments.every((s) => s.durationMs >= 0)).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { TRANSITIONS, type ActorKind, type JobState, type RunOutcome } from "../fsm/table";
import { buildTimeline, summarizeTimeline, type Timeline, type TimelineEvent, type TimelineRun } from "./timeline";

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
const S = 1_000;

type Ev = TimelineEvent;
type Run = TimelineRun;

const WORKER_EVENTS = new Set(["claim", "start", "finish", "fail", "stop"]);

/**
 * A history as the write path would log it, written as its steps: `event seconds` (after T0),
 * `by w-14` where a worker other than the attempt's default does it or where a worker does
 * what would otherwise be the supervisor's. The state each event leads to comes from the
 * machine's table, so a step the table has no row for fails here; attempts and versions follow.
 */
function history(log: string): { events: Ev[]; runs: Run[] } {
  const events: Ev[] = [];
  const runs: Run[] = [];
  let attempt = 0;
  let state: JobState | null = null;
  for (const [v, text] of log.split(", ").entries()) {
    const [name, atS, , who] = text.split(" ");
    const t = TRANSITIONS.find((r) => r.from === state && r.event === name);
    if (!t) throw new Error(`no ${name} from ${state ?? "nothing"} in the machine's table`);
    const { event, to: toState } = t;
    if (event === "claim") attempt++;
    const actorKind: ActorKind = event === "submit" ? "api" : WORKER_EVENTS.has(event) || who ? "worker" : "supervisor";
    const actorId = who ?? (actorKind === "worker" ? `w-${attempt}` : "sup-1");
    events.push({ event, toState, attempt, stateVersion: v, at: new Date(T0 + Number(atS) * S), actorKind, actorId });
    if (event === "claim") runs.push({ attempt, workerId: actorId, outcome: null });
    state = toState;
  }
  return { events, runs };
}

const JOB = { createdAt: new Date(T0) };
/** Each lane with its segments as `kind start-end` in seconds after T0. */
const shape = (t: Timeline) =>
  t.lanes.map((l) => ({
    attempt: l.attempt,
    worker: l.worker,
    outcome: l.outcome,
    segments: l.segments.map((s) => `${s.kind} ${(s.start - T0) / S}-${(s.end - T0) / S}`).join(", "),
  }));
const withOutcomes = (runs: Run[], ...outcomes: (RunOutcome | null)[]) => runs.map((r, i) => ({ ...r, outcome: outcomes[i] ?? null }));

/** A history's timeline seen `nowS` after T0, its runs closed with `outcomes` in attempt order (open past them). */
function timeline(log: string, outcomes: RunOutcome[] = [], nowS = 0): Timeline {
  const { events, runs } = history(log);
  return buildTimeline(JOB, withOutcomes(runs, ...outcomes), events, T0 + nowS * S);
}

describe("buildTimeline", () => {
  it("a clean success: the wait before the attempt, then claimed and running", () => {
    const t = timeline("submit 0, claim 5, start 6, finish 16", ["succeeded"], 3_600);
    expect(shape(t)).toEqual([
      { attempt: 0, worker: null, outcome: null, segments: "queue_wait 0-5" },
      { attempt: 1, worker: "w-1", outcome: "succeeded", segments: "claimed 5-6, running 6-16" },
    ]);
    expect(t).toMatchObject({ start: T0, end: T0 + 16 * S, isOngoing: false, isTruncated: false });
    const running = t.segments.find((s) => s.kind === "running");
    expect(running).toMatchObject({ durationMs: 10 * S, startEvent: "start", endEvent: "finish", isOngoing: false });
  });

  it("a retried job: the retry wait and the queue wait after it stay in the failed attempt's lane", () => {
    const t = timeline("submit 0, claim 1, start 2, fail 12, retry 42, claim 45, start 46, finish 50", ["failed", "succeeded"]);
    expect(shape(t)).toEqual([
      { attempt: 0, worker: null, outcome: null, segments: "queue_wait 0-1" },
      { attempt: 1, worker: "w-1", outcome: "failed", segments: "claimed 1-2, running 2-12, retry_wait 12-42, queue_wait 42-45" },
      { attempt: 2, worker: "w-2", outcome: "succeeded", segments: "claimed 45-46, running 46-50" },
    ]);
    expect(t.segments.find((s) => s.kind === "retry_wait")).toMatchObject({ startEvent: "fail", endEvent: "retry" });
    expect(summarizeTimeline(t)).toMatchObject({ totalMs: 50 * S, lostToExpiredLeasesMs: 0 });
    expect(summarizeTimeline(t).byKind).toMatchObject({ queue_wait: 4 * S, claimed: 2 * S, running: 14 * S, retry_wait: 30 * S });
  });

  it("a lease-expired attempt: its time counts as lost, and the reclaim starts a queue wait", () => {
    const t = timeline("submit 0, claim 2 by w-14, start 3, reclaim 63, claim 64 by w-03, start 65, finish 75", ["lease_expired", "succeeded"]);
    expect(shape(t)).toEqual([
      { attempt: 0, worker: null, outcome: null, segments: "queue_wait 0-2" },
      { attempt: 1, worker: "w-14", outcome: "lease_expired", segments: "claimed 2-3, running 3-63, queue_wait 63-64" },
      { attempt: 2, worker: "w-03", outcome: "succeeded", segments: "claimed 64-65, running 65-75" },
    ]);
    expect(t.segments.find((s) => s.startEvent === "reclaim")).toMatchObject({ kind: "queue_wait", worker: "w-14" });
    expect(summarizeTimeline(t).lostToExpiredLeasesMs).toBe(61 * S);
  });

  it("time paused in an attempt that later lost its lease shows as paused, not as lost", () => {
    const spent = summarizeTimeline(timeline("submit 0, claim 1, start 2, pause 12, resume 72, reclaim 102", ["lease_expired"], 110));
    expect(spent.lostToExpiredLeasesMs).toBe((1 + 10 + 30) * S);
    expect(spent.byKind.paused).toBe(60 * S);
  });

  it("a paused job: paused between two running segments, the last still going on", () => {
    const t = timeline("submit 0, claim 1, start 2, pause 10, resume 70", [], 100);
    expect(shape(t)[1]).toEqual({ attempt: 1, worker: "w-1", outcome: "open", segments: "claimed 1-2, running 2-10, paused 10-70, running 70-100" });
    expect(t.isOngoing).toBe(true);
    expect(t.end).toBe(T0 + 100 * S);
    expect(t.segments.at(-1)).toMatchObject({ isOngoing: true, endEvent: null, durationMs: 30 * S });
  });

  it("a replayed dead job: the time dead ends at the replay, then a new attempt", () => {
    const t = timeline("submit 0, claim 1, start 2, abandon 5 by w-1, replay 3605, claim 3606, start 3607, finish 3610", ["failed", "succeeded"]);
    expect(shape(t).slice(1)).toEqual([
      { attempt: 1, worker: "w-1", outcome: "failed", segments: "claimed 1-2, running 2-5, dead 5-3605, queue_wait 3605-3606" },
      { attempt: 2, worker: "w-2", outcome: "succeeded", segments: "claimed 3606-3607, running 3607-3610" },
    ]);
    expect(t.segments.find((s) => s.kind === "dead")).toMatchObject({ startEvent: "abandon", endEvent: "replay" });
  });

  it("a dead job nobody replayed has ended: no open segment", () => {
    const t = timeline("submit 0, claim 1, start 2, abandon 5 by w-1", ["failed"], 999);
    expect(t.isOngoing).toBe(false);
    expect(t.end).toBe(T0 + 5 * S);
    expect(t.segments.map((s) => s.kind)).toEqual(["queue_wait", "claimed", "running"]);
  });

  it("a job still running: the running segment reaches now and the attempt is open", () => {
    const t = timeline("submit 0, claim 3, start 4", [], 64);
    expect(shape(t)[1]).toEqual({ attempt: 1, worker: "w-1", outcome: "open", segments: "claimed 3-4, running 4-64" });
    expect(t).toMatchObject({ isOngoing: true, end: T0 + 64 * S });
  });

  it("a job still queued: one lane, the wait so far", () => {
    const t = timeline("submit 0", [], 9);
    expect(shape(t)).toEqual([{ attempt: 0, worker: null, outcome: null, segments: "queue_wait 0-9" }]);
  });

  it("ten attempts give eleven lanes, in attempt order, whatever the order of the log", () => {
    const steps = ["submit 0"];
    for (let i = 0; i < 10; i++) {
      steps.push(`claim ${i * 10 + 1}`, `start ${i * 10 + 2}`);
      steps.push(i < 9 ? `fail ${i * 10 + 5}` : `finish ${i * 10 + 5}`);
      if (i < 9) steps.push(`retry ${i * 10 + 9}`);
    }
    const { events, runs } = history(steps.join(", "));
    const t = buildTimeline(JOB, runs, [...events].reverse(), T0);
    expect(t.lanes.map((l) => l.attempt)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(t.lanes[10]?.segments.map((s) => s.kind)).toEqual(["claimed", "running"]);
  });

  it("only the newest events loaded: says so, and still draws what it has", () => {
    const { events, runs } = history("submit 0, claim 1, start 2, finish 3");
    const t = buildTimeline(JOB, withOutcomes(runs, "succeeded"), events.slice(2), T0);
    expect(t.isTruncated).toBe(true);
    expect(shape(t)).toEqual([{ attempt: 1, worker: "w-1", outcome: "succeeded", segments: "running 2-3" }]);
  });

  it("a clock behind the last event never gives a negative duration", () => {
    const t = timeline("submit 0, claim 10", [], 5);
    expect(t.segments.every((s) => s.durationMs >= 0)).toBe(true);
  });
});

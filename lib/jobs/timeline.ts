import { type JobEvent, type JobState, type RunOutcome } from "../fsm/table";
import type { EventRecord, RunRecord } from "./queries";
import type { JobRow } from "./types";

/**
 * What a job was doing during one stretch of its life, named after the state
 * it was in. `dead` only appears when a replay ended it: a job that is still
 * dead (or succeeded, or cancelled) has finished, and its timeline ends there.
 */
export type SegmentKind = "queue_wait" | "claimed" | "running" | "paused" | "cancelling" | "retry_wait" | "dead";

/**
 * Keyed by `JobState`, so a new state in the machine fails to compile until it
 * says how its time is shown. Terminal states that end the story map to null.
 */
const KIND_OF_STATE: Record<JobState, SegmentKind | null> = {
  queued: "queue_wait",
  claimed: "claimed",
  running: "running",
  paused: "paused",
  cancelling: "cancelling",
  retry_wait: "retry_wait",
  dead: "dead",
  succeeded: null,
  cancelled: null,
};

/** How an attempt ended; `open` while it is still under way; null for the wait before the first attempt. */
export type AttemptOutcome = RunOutcome | "open" | null;

export type Segment = {
  kind: SegmentKind;
  /** The job's attempt while in this segment: 0 before the first claim. */
  attempt: number;
  /** Epoch milliseconds. */
  start: number;
  /** Epoch milliseconds; `now` when the segment is still going on. */
  end: number;
  durationMs: number;
  isOngoing: boolean;
  /** The event that began the segment and the one that ended it (null while ongoing). */
  startEvent: JobEvent;
  endEvent: JobEvent | null;
  worker: string | null;
  outcome: AttemptOutcome;
};

/**
 * One row of the chart. Lane n holds everything from attempt n's claim up to
 * the next claim (its run, and any retry wait or queue wait after it), so the
 * lanes form a staircase; lane 0 is the wait before the first attempt.
 */
export type Lane = { attempt: number; worker: string | null; outcome: AttemptOutcome; segments: Segment[] };

export type Timeline = {
  start: number;
  end: number;
  lanes: Lane[];
  /** Every segment, in time order. */
  segments: Segment[];
  /** Only the newest events were loaded, so the first segments may be missing. */
  isTruncated: boolean;
  isOngoing: boolean;
};

type TimelineJob = Pick<JobRow, "createdAt">;
export type TimelineRun = Pick<RunRecord, "attempt" | "workerId" | "outcome">;
export type TimelineEvent = Pick<EventRecord, "event" | "toState" | "attempt" | "stateVersion" | "at" | "actorKind" | "actorId">;

/**
 * Turn a job's event log into segments per attempt. Pure: the same inputs give
 * the same timeline, and `now` only closes the segment that is still going on.
 */
export function buildTimeline(job: TimelineJob, runs: readonly TimelineRun[], events: readonly TimelineEvent[], now: number): Timeline {
  const sorted = [...events].sort((a, b) => a.stateVersion - b.stateVersion);
  const runOf = new Map(runs.map((r) => [r.attempt, r]));
  const claimedBy = new Map(sorted.filter((e) => e.event === "claim").map((e) => [e.attempt, e.actorId]));
  const workerOf = (attempt: number) => runOf.get(attempt)?.workerId ?? claimedBy.get(attempt) ?? null;
  const outcomeOf = (attempt: number): AttemptOutcome => {
    if (attempt === 0) return null;
    return runOf.get(attempt)?.outcome ?? "open";
  };

  const segments: Segment[] = [];
  let open: { kind: SegmentKind; attempt: number; start: number; startEvent: JobEvent } | null = null;
  const close = (end: number, endEvent: JobEvent | null) => {
    if (!open) return;
    const stop = Math.max(end, open.start);
    segments.push({
      ...open,
      end: stop,
      durationMs: stop - open.start,
      isOngoing: endEvent === null,
      endEvent,
      worker: open.attempt === 0 ? null : workerOf(open.attempt),
      outcome: outcomeOf(open.attempt),
    });
    open = null;
  };
  for (const e of sorted) {
    const at = e.at.getTime();
    close(at, e.event);
    const kind = KIND_OF_STATE[e.toState];
    open = kind && { kind, attempt: e.attempt, start: at, startEvent: e.event };
  }
  // A dead job that nobody replayed has ended; any other open segment is still going on.
  const isOngoing = open !== null && open.kind !== "dead";
  if (isOngoing) close(now, null);

  const attempts = new Set([...segments.map((s) => s.attempt), ...runs.map((r) => r.attempt)]);
  const lanes = [...attempts]
    .sort((a, b) => a - b)
    .map((attempt) => ({
      attempt,
      worker: attempt === 0 ? null : workerOf(attempt),
      outcome: outcomeOf(attempt),
      segments: segments.filter((s) => s.attempt === attempt),
    }));
  const first = sorted[0]?.at.getTime() ?? job.createdAt.getTime();
  const last = sorted.at(-1)?.at.getTime() ?? first;
  return {
    start: Math.min(first, segments[0]?.start ?? first),
    end: Math.max(last, segments.at(-1)?.end ?? last),
    lanes,
    segments,
    isTruncated: sorted[0] !== undefined && sorted[0].event !== "submit",
    isOngoing,
  };
}

/** Where a job's time went: "why was this slow", in the design's words. */
export type TimeSpent = {
  totalMs: number;
  byKind: Record<SegmentKind, number>;
  /**
   * Claimed or running in attempts whose lease expired: work thrown away. Time
   * paused by an operator is not counted here; it shows as paused.
   */
  lostToExpiredLeasesMs: number;
};

const WORKING_KINDS: ReadonlySet<SegmentKind> = new Set(["claimed", "running", "cancelling"]);

export function summarizeTimeline(t: Timeline): TimeSpent {
  const byKind: Record<SegmentKind, number> = {
    queue_wait: 0,
    claimed: 0,
    running: 0,
    paused: 0,
    cancelling: 0,
    retry_wait: 0,
    dead: 0,
  };
  let lost = 0;
  for (const s of t.segments) {
    byKind[s.kind] += s.durationMs;
    if (s.outcome === "lease_expired" && WORKING_KINDS.has(s.kind)) lost += s.durationMs;
  }
  return { totalMs: t.end - t.start, byKind, lostToExpiredLeasesMs: lost };
}

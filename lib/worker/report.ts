import type { Db } from "../db/client";
import { canApply, findTransition, type JobSnapshot } from "../fsm/machine";
import type { JobEvent, JobState } from "../fsm/table";
import { applyWorkerBatch, type BatchItem } from "../jobs/complete";
import { transition } from "../jobs/transition";
import type { Rejection, TransitionInput } from "../jobs/types";
import type { Applied } from "../jobs/round";
import { retryAt, type BackoffOptions } from "./backoff";
import { CHECKPOINT_FRESHNESS_MS } from "./context";
import { withDbRetry } from "./db-retry";
import { DrainTimeout } from "./errors";
import type { Lease } from "./lease";
import type { JobOutcome, Logger } from "./types";

/** How a handler ended, before the worker turns it into an event. */
export type HandlerOutcome =
  | { kind: "success"; result: unknown }
  | { kind: "cancelled"; error: { class: string; message: string }; retry: BackoffOptions }
  | { kind: "error"; error: { class: string; message: string; stack?: string }; permanent: boolean; retry: BackoffOptions };

/**
 * The worker events that may express an outcome, in order of preference. The
 * table decides which one applies from the state the worker last learned:
 * a retryable error `fail`s while attempts are left and is `abandon`ed on the
 * last attempt; from `cancelling` only `fail` (→ cancelled) is legal.
 */
function candidates(o: HandlerOutcome): JobEvent[] {
  if (o.kind === "success") return ["finish"];
  if (o.kind === "cancelled") return ["stop", "fail", "abandon"];
  return o.permanent ? ["abandon", "fail"] : ["fail", "abandon"];
}

export function chooseEvent(o: HandlerOutcome, job: JobSnapshot): JobEvent | null {
  return candidates(o).find((e) => canApply(job, e, "worker")) ?? null;
}

/** Where a worker's reports go: its rounds (lib/worker/rounds.ts), many jobs per statement. */
export type Reporter = {
  add(item: BatchItem): Promise<Applied | null>;
  /** The same without a promise: `done` hears the job it moved, null, or (`failed`) the round's error. */
  push(item: BatchItem, done: (moved: Applied | null, failed?: { error: unknown }) => void): void;
};

export type ReportDeps = {
  db: Db;
  workerId: string;
  log: Logger;
  refresh: (lease: Lease) => Promise<void>;
  /** The worker's rounds; without them each report is its own statement. */
  batch?: Reporter;
};

export type SendResult = { ok: true; job: Applied } | Rejection;

/**
 * Send one of the worker's own transitions (start, finish, fail, ...): through the worker's
 * rounds when it has them — many jobs in one statement — else alone. A report that loses its
 * guard goes through `transition()`, which re-reads the row, classifies and records it.
 */
export async function send(
  deps: ReportDeps,
  lease: Lease,
  input: TransitionInput & { expected: { state: JobState; version: number } },
): Promise<SendResult> {
  const item = { ...input, attempt: lease.attempt };
  const r = deps.batch ? await deps.batch.add(item) : (await applyWorkerBatch(deps.db, deps.workerId, [item]))[0];
  return r ? { ok: true, job: r } : transition(deps.db, input);
}

/**
 * How many refusals may be re-decided. Each re-decision needs the job to have
 * moved to another state, so this only bounds an operator toggling it.
 */
const MAX_REDECIDE = 4;

/** Report a finished handler through the write path; refusals are logged and the job dropped. */
export async function report(lease: Lease, o: HandlerOutcome, deps: ReportDeps): Promise<JobOutcome> {
  const base = { jobId: lease.id, type: lease.job.type, attempt: lease.attempt };
  const done = (rest: Omit<JobOutcome, keyof typeof base | "durationMs">): JobOutcome => ({
    ...base,
    ...rest,
    durationMs: Date.now() - lease.startedAt,
    error: o.kind === "success" ? undefined : o.error,
  });
  let state: JobState = lease.state;
  let version = lease.stateVersion;
  for (let redecided = 0; ;) {
    if (lease.lost) return done({ status: lease.lossReason instanceof DrainTimeout ? "drained" : "lease_lost" });
    const snapshot = { state, attempt: lease.attempt, maxAttempts: lease.job.maxAttempts, stateVersion: version };
    const event = chooseEvent(o, snapshot);
    if (!event) {
      if (state === "paused") {
        // The handler finished while an operator had the job paused. Hold the
        // outcome as a checkpoint would, until it is resumed or cancelled.
        if (Date.now() - Math.max(lease.knownAt, lease.checkedAt) > CHECKPOINT_FRESHNESS_MS) await deps.refresh(lease);
        if (lease.state === "paused") await lease.waitForChange(CHECKPOINT_FRESHNESS_MS);
        ({ state, stateVersion: version } = lease);
        continue;
      }
      return done({ status: "refused", state, reason: `no worker event reports a ${o.kind} from ${state}` });
    }
    const input = buildInput(lease, deps.workerId, event, { state, version }, o);
    let sent;
    try {
      sent = await withDbRetry(`report ${event}`, () => send(deps, lease, input), { log: deps.log, signal: () => lease.signal });
    } catch (e) {
      if (lease.lost) continue;
      deps.log.error("could not report; the lease will expire and the supervisor will reclaim the job", {
        ...base,
        event,
        error: e instanceof Error ? e.message : String(e),
      });
      return done({ status: "failed_to_report", event });
    }
    const res = sent.value;
    if (res.ok) {
      lease.learn(res.job.state, res.job.stateVersion);
      return done({ status: "reported", event, state: res.job.state });
    }
    const cur = res.current;
    const to = findTransition(state, event)?.to;
    // A retried write may have committed before its connection dropped: the refusal then shows our own result.
    if (sent.retried && cur && cur.attempt === lease.attempt && cur.state === to && cur.movedBy?.actorId === deps.workerId) {
      return done({ status: "reported", event, state: cur.state });
    }
    // A conflict on our own attempt means an operator or tenant moved the job after we last
    // learned its state (cancelled, paused and resumed it): decide again from where it is now.
    const moved = cur && (cur.state !== state || cur.stateVersion !== version);
    if (res.kind === "conflict" && cur && moved && cur.attempt === lease.attempt && redecided < MAX_REDECIDE) {
      redecided++;
      state = cur.state;
      version = cur.stateVersion;
      lease.learn(cur.state, cur.stateVersion);
      continue;
    }
    deps.log.info("report refused; dropping the job", { ...base, event, kind: res.kind, reason: res.reason });
    return done({ status: "refused", event, state: cur?.state, reason: res.reason });
  }
}

function buildInput(
  lease: Lease,
  workerId: string,
  event: JobEvent,
  expected: { state: JobState; version: number },
  o: HandlerOutcome,
): TransitionInput & { expected: { state: JobState; version: number } } {
  const { state } = expected;
  const input: TransitionInput & { expected: { state: JobState; version: number } } = {
    jobId: lease.id,
    event,
    actor: { kind: "worker", id: workerId },
    attempt: lease.attempt,
    expected,
  };
  // An undefined result stays SQL NULL on the run record rather than JSON null.
  if (o.kind === "success") {
    if (o.result !== undefined) input.result = o.result;
  } else if (event !== "stop") input.error = o.error;
  if (o.kind !== "success" && findTransition(state, event)?.schedules === "retry_at") {
    input.retryAt = retryAt(lease.attempt, o.retry);
  }
  return input;
}

import { IllegalTransition, step } from "../fsm/machine";
import type { Db } from "../db/client";
import type { JobState } from "../fsm/table";
import { classifyMiss, readCurrent, recordRejection } from "./rejections";
import { applyMoves, type Move } from "./write";
import type { TransitionInput, TransitionResult } from "./types";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The longest actor id a transition takes (an e-mail address is at most 254): ids are indexed, and a btree row holds at most 2,704 bytes. */
export const MAX_ACTOR_ID = 256;

/** Bad input that no transition can take: thrown before anything is read or written. */
export class InvalidTransitionInput extends Error {
  override name = "InvalidTransitionInput";
  readonly code = "invalid_input";
}

/**
 * Apply one event to one job: the guarded write (lib/jobs/write.ts) for one move.
 *
 * When the caller names the state and version it saw (a console page, a worker, the supervisor),
 * that is one statement. Otherwise the row is read first and its state and version become the
 * expectation. Zero rows is not an error: the row is read again and the refusal classified
 * (conflict, illegal, drift) and recorded in `transition_rejections`.
 *
 * Inside a caller's transaction (a console request with its tenant scope and audit row), the
 * move, a refusal's record and the caller's own writes share its commit.
 */
export async function transition(db: Db, input: TransitionInput): Promise<TransitionResult> {
  const actorId: unknown = input.actor?.id;
  if (typeof actorId !== "string" || actorId.length === 0 || actorId.length > MAX_ACTOR_ID) {
    // Recorded as given, a longer id failed the rejection's index (54000) instead of saying so.
    throw new InvalidTransitionInput(`an actor id is 1 to ${MAX_ACTOR_ID} characters`);
  }
  if (!UUID.test(input.jobId)) {
    return { ok: false, kind: "not_found", reason: `no job ${JSON.stringify(input.jobId.slice(0, 80))}`, current: null };
  }
  let expected = input.expected;
  if (!expected) {
    const current = await readCurrent(db, input.jobId);
    if (!current) return recordRejection(db, input, null, "not_found", `no job ${input.jobId}`);
    expected = { state: current.state, version: current.stateVersion };
  }
  const move: Move = { ...input, expected };
  const [job] = await applyMoves(db, [move]);
  if (job) return { ok: true, job, from: expected.state, event: input.event };
  return classify(db, input, expected);
}

/** Why a move did not apply, recorded: the row as it is now against what the move expected. */
async function classify(db: Db, input: TransitionInput, expected: { state: JobState; version: number }): Promise<TransitionResult> {
  const now = await readCurrent(db, input.jobId);
  if (!now) return recordRejection(db, input, null, "not_found", `no job ${input.jobId}`);
  const miss = classifyMiss(input, expected, now);
  if (miss) return recordRejection(db, input, now, miss.kind, miss.reason);
  try {
    step(now, input.event, input.actor.kind);
  } catch (e) {
    if (e instanceof IllegalTransition) return recordRejection(db, input, now, "illegal", e.reason);
    throw e;
  }
  // The table allows it and nothing moved: only the supervisor's "still stale" guard can fail so.
  return recordRejection(db, input, now, "conflict", "the heartbeat is no longer stale: the worker is alive");
}

import { IllegalTransition, isLeased, isTerminal, step, type Step } from "../fsm/machine";
import type { JobState } from "../fsm/table";
import type { Sql } from "../db/client";
import { classifyMiss, readCurrent, recordRejection } from "./rejections";
import { clock, inWritePath, JOB_COLUMNS, type Tx } from "./write-path";
import type { JobRow, TransitionInput, TransitionResult } from "./types";

const MAX_ERROR_MESSAGE = 8192;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Apply one event to one job: the only code that moves `jobs.state`.
 *
 * In one transaction: a guarded UPDATE naming the expected state and version
 * (workers also their attempt and lease, the supervisor a still-stale
 * heartbeat), the `job_events` row, and the run record. Zero rows is not an
 * error: the row is read again and the refusal classified and recorded.
 */
export async function transition(sql: Sql | Tx, input: TransitionInput): Promise<TransitionResult> {
  if (!UUID.test(input.jobId)) {
    return { ok: false, kind: "not_found", reason: `no job ${JSON.stringify(input.jobId.slice(0, 80))}`, current: null };
  }
  return inWritePath(sql, async (tx) => {
    const current = await readCurrent(tx, input.jobId);
    if (!current) return recordRejection(tx, input, null, "not_found", `no job ${input.jobId}`);

    const expected = input.expected ?? { state: current.state, version: current.stateVersion };
    const early = classifyMiss(input, expected, current);
    if (early) return recordRejection(tx, input, current, early.kind, early.reason);

    let s: Step;
    try {
      s = step(current, input.event, input.actor.kind);
    } catch (e) {
      if (e instanceof IllegalTransition) return recordRejection(tx, input, current, "illegal", e.reason);
      throw e;
    }
    const job = await guardedUpdate(tx, input, expected, s);
    if (!job) {
      // Someone moved the row between our read and our write: read it again and say who.
      const now = await readCurrent(tx, input.jobId);
      const miss = now && classifyMiss(input, expected, now);
      if (now && miss) return recordRejection(tx, input, now, miss.kind, miss.reason);
      return recordRejection(tx, input, now, "conflict", "the heartbeat is no longer stale: the worker is alive");
    }
    await appendEvent(tx, input, current.state, job);
    await updateRun(tx, input, s, current.attempt);
    if (job.state === "queued") await tx`SELECT pg_notify('jobscope_queued', ${job.queue})`;
    return { ok: true, job, from: current.state, event: input.event };
  });
}

async function guardedUpdate(
  tx: Tx,
  input: TransitionInput,
  expected: { state: JobState; version: number },
  s: Step,
): Promise<JobRow | null> {
  const now = clock(tx, input.at);
  const { next, transition: t } = s;
  const notBefore =
    t.schedules === "now" ? now : t.schedules === "retry_at" ? tx`${input.retryAt ?? new Date()}::timestamptz` : tx`not_before`;
  const fence =
    input.actor.kind === "worker" ? tx`AND attempt = ${input.attempt ?? -1} AND lease_owner = ${input.actor.id}` : tx``;
  const stale = input.staleBefore ? tx`AND heartbeat_at < ${input.staleBefore}` : tx``;
  const rows = await tx<JobRow[]>`
    UPDATE jobs SET
      state = ${next.state},
      state_version = ${next.stateVersion},
      attempt = ${next.attempt},
      max_attempts = ${next.maxAttempts},
      lease_owner = ${isLeased(next.state) ? tx`lease_owner` : null},
      heartbeat_at = ${s.resetsHeartbeat ? now : tx`heartbeat_at`},
      not_before = ${notBefore},
      finished_at = ${isTerminal(next.state) ? now : null},
      updated_at = ${now}
    WHERE id = ${input.jobId} AND state = ${expected.state} AND state_version = ${expected.version}
      ${fence} ${stale}
    RETURNING ${tx.unsafe(JOB_COLUMNS)}`;
  return rows[0] ?? null;
}

async function appendEvent(tx: Tx, input: TransitionInput, from: JobState, job: JobRow) {
  const payload = {
    ...input.payload,
    ...(input.error && { error: input.error }),
    ...(input.retryAt && input.event === "fail" && { retryAt: input.retryAt.toISOString() }),
  };
  await tx`
    INSERT INTO job_events (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, payload)
    VALUES (${job.id}, ${job.tenantId}, ${input.event}, ${from}, ${job.state}, ${input.actor.kind}, ${input.actor.id},
            ${job.attempt}, ${job.stateVersion}, ${clock(tx, input.at)}, ${Object.keys(payload).length ? tx.json(payload) : null})`;
}

async function updateRun(tx: Tx, input: TransitionInput, s: Step, attempt: number) {
  const now = clock(tx, input.at);
  if (s.startsRun) {
    await tx`UPDATE job_runs SET started_at = ${now} WHERE job_id = ${input.jobId} AND attempt = ${attempt}`;
  } else if (s.closesRun) {
    const closed = await tx`
      UPDATE job_runs SET finished_at = ${now}, outcome = ${s.closesRun},
        error_class = ${input.error?.class.slice(0, 200) ?? null},
        error_message = ${input.error?.message.slice(0, MAX_ERROR_MESSAGE) ?? null},
        result = ${input.result === undefined ? null : tx.json(input.result as never)}
      WHERE job_id = ${input.jobId} AND attempt = ${attempt} AND outcome IS NULL`;
    // The claim opened this run; a transition that closes a run that is not open is a bug, not a refusal.
    if (closed.count !== 1) throw new Error(`job ${input.jobId}: no open run for attempt ${attempt}`);
  }
}


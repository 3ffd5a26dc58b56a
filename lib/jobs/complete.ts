import { isLeased, isTerminal, step, type Step } from "../fsm/machine";
import type { JobEvent, JobState } from "../fsm/table";
import type { Sql } from "../db/client";
import { inWritePath, JOB_COLUMNS } from "./write-path";
import type { JobRow, TransitionInput, TransitionResult } from "./types";

const MAX_ERROR_MESSAGE = 8192;

/**
 * One worker report in a batch: what `transition()` would get from a worker
 * (event, attempt, the state and version it last saw), plus `maxAttempts` so
 * the table can resolve the step without reading the row first.
 */
export type BatchItem = TransitionInput & {
  expected: { state: JobState; version: number };
  attempt: number;
  maxAttempts: number;
};

/**
 * The batched write path for a worker's own reports (`start`, `finish`,
 * `fail`, `abandon`, `stop`): many jobs in ONE statement of data-modifying
 * CTEs. Each row is guarded exactly like `transition()` guards it — expected
 * state AND version, attempt AND lease owner — and moves the row, closes or
 * starts its run record and appends its event together.
 *
 * Returns one entry per input, in input order: the applied result, or `null`
 * for a row that lost its guard (someone moved it first, or an item the table
 * refuses). The caller sends each loser through `transition()`, which reads
 * the row, classifies the refusal and records it; nothing here is recorded.
 */
export async function applyWorkerBatch(sql: Sql, workerId: string, items: readonly BatchItem[]): Promise<(TransitionResult | null)[]> {
  if (items.length === 0) return [];
  type Planned = { i: number; item: BatchItem; s: Step };
  const planned: Planned[] = [];
  items.forEach((item, i) => {
    if (item.actor.kind !== "worker" || item.actor.id !== workerId) return;
    try {
      const s = step({ ...item.expected, stateVersion: item.expected.version, attempt: item.attempt, maxAttempts: item.maxAttempts }, item.event, "worker");
      // Only the worker's own moves: the run is started or closed, the lease kept or dropped, nothing re-queued.
      if (s.opensRun || s.next.state === "queued" || s.transition.refundsAttempt) return;
      if (!s.startsRun && !s.closesRun) return;
      planned.push({ i, item, s });
    } catch {
      /* illegal for the table: the caller's transition() records why */
    }
  });
  const out: (TransitionResult | null)[] = items.map(() => null);
  if (planned.length === 0) return out;

  // Lock rows in id order, so two batches (or a batch and a heartbeat) touching the same jobs cannot deadlock.
  planned.sort((a, b) => (a.item.jobId < b.item.jobId ? -1 : a.item.jobId > b.item.jobId ? 1 : 0));
  const rows = planned.map(({ item, s }) => {
    const payload = {
      ...item.payload,
      ...(item.error && { error: item.error }),
      ...(item.retryAt && item.event === "fail" && { retryAt: item.retryAt.toISOString() }),
    };
    return {
      id: item.jobId,
      attempt: item.attempt,
      exp_state: item.expected.state,
      exp_version: item.expected.version,
      event: item.event,
      to_state: s.next.state,
      leased: isLeased(s.next.state),
      terminal: isTerminal(s.next.state),
      resets_hb: s.resetsHeartbeat,
      retry_at: s.transition.schedules === "retry_at" ? (item.retryAt ?? new Date()).toISOString() : null,
      starts: s.startsRun,
      outcome: s.closesRun,
      error_class: s.closesRun ? (item.error?.class.slice(0, 200) ?? null) : null,
      error_message: s.closesRun ? (item.error?.message.slice(0, MAX_ERROR_MESSAGE) ?? null) : null,
      result: s.closesRun && item.result !== undefined ? item.result : null,
      has_result: s.closesRun !== null && item.result !== undefined,
      payload: Object.keys(payload).length ? payload : null,
    };
  });

  const applied = await inWritePath(sql, async (tx) => {
    const moved = await tx<(JobRow & { from: JobState; event: JobEvent; runs: number })[]>`
      WITH input AS (
        SELECT * FROM jsonb_to_recordset(${tx.json(rows as never)}::jsonb) AS i(
          id uuid, attempt int, exp_state job_state, exp_version int, event job_event, to_state job_state,
          leased boolean, terminal boolean, resets_hb boolean, retry_at timestamptz, starts boolean,
          outcome run_outcome, error_class text, error_message text, result jsonb, has_result boolean, payload jsonb)
      ), moved AS (
        UPDATE jobs j SET
          state = i.to_state,
          state_version = j.state_version + 1,
          lease_owner = CASE WHEN i.leased THEN j.lease_owner END,
          heartbeat_at = CASE WHEN i.resets_hb THEN now() ELSE j.heartbeat_at END,
          not_before = coalesce(i.retry_at, j.not_before),
          finished_at = CASE WHEN i.terminal THEN now() END,
          updated_at = now()
        FROM input i
        WHERE j.id = i.id AND j.state = i.exp_state AND j.state_version = i.exp_version
          AND j.attempt = i.attempt AND j.lease_owner = ${workerId}
        RETURNING j.*, i.exp_state AS from_state, i.event AS ev
      ), runs AS (
        UPDATE job_runs r SET
          started_at = CASE WHEN i.starts THEN now() ELSE r.started_at END,
          finished_at = CASE WHEN i.outcome IS NOT NULL THEN now() ELSE r.finished_at END,
          outcome = coalesce(i.outcome, r.outcome),
          error_class = CASE WHEN i.outcome IS NOT NULL THEN i.error_class ELSE r.error_class END,
          error_message = CASE WHEN i.outcome IS NOT NULL THEN i.error_message ELSE r.error_message END,
          result = CASE WHEN i.has_result THEN i.result ELSE r.result END
        FROM moved m JOIN input i ON i.id = m.id
        WHERE r.job_id = m.id AND r.attempt = m.attempt AND r.outcome IS NULL
        RETURNING r.job_id
      ), events AS (
        INSERT INTO job_events (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, payload)
        SELECT m.id, m.tenant_id, i.event, i.exp_state, m.state, 'worker', ${workerId}, m.attempt, m.state_version, now(), i.payload
          FROM moved m JOIN input i ON i.id = m.id
      )
      SELECT ${tx.unsafe(JOB_COLUMNS.split(",").map((c) => `m.${c.trim()}`).join(", "))},
             m.from_state AS "from", m.ev AS event, (SELECT count(*)::int FROM runs) AS runs
        FROM moved m`;
    // The claim opened each run; a step that starts or closes a run that is not open is a bug, not a refusal.
    if (moved.length > 0 && moved[0]!.runs !== moved.length) {
      throw new Error(`batched report: ${moved.length} jobs moved but ${moved[0]!.runs} run records were open`);
    }
    return moved;
  }, { keyLookups: true });

  const byId = new Map(applied.map((r) => [r.id, r]));
  for (const { i, item } of planned) {
    const r = byId.get(item.jobId);
    if (!r) continue;
    const { from, event, runs: _runs, ...job } = r;
    void _runs;
    out[i] = { ok: true, job: job as JobRow, from, event };
  }
  return out;
}

/**
 * Collects items and flushes them together. With `delayMs` 0 (group commit):
 * the first item flushes at once (with whatever arrived in the same tick), and
 * items that arrive while a flush is in flight wait for it and go together in
 * the next — batches grow with the load, an idle worker pays no delay. With
 * `delayMs` > 0: a flush `delayMs` after the first waiting item. Either way a
 * flush starts at once when `maxSize` items wait. Each `add` resolves with its
 * own slot of the flush's answer; a flush that throws rejects every item in it.
 */
export class Batcher<I, O> {
  private pending: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private scheduled = false;
  private inFlight = new Set<Promise<void>>();

  constructor(
    private readonly flushFn: (items: I[]) => Promise<O[]>,
    private readonly opts: { delayMs: number; maxSize: number },
  ) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length >= this.opts.maxSize) this.flush();
      else if (this.opts.delayMs > 0) this.timer ??= setTimeout(() => this.flush(), this.opts.delayMs);
      else if (!this.scheduled && this.inFlight.size === 0) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          if (this.inFlight.size === 0) this.flush();
        });
      }
    });
  }

  /** Send what is waiting now; resolves when every flush started so far has ended. */
  async drain(): Promise<void> {
    this.flush();
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private flush() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const p = this.flushFn(batch.map((b) => b.item)).then(
      (outs) => batch.forEach((b, i) => b.resolve(outs[i] as O)),
      (e: unknown) => batch.forEach((b) => b.reject(e)),
    );
    this.inFlight.add(p);
    void p.finally(() => {
      this.inFlight.delete(p);
      // Group commit: what arrived during this flush goes next, together.
      if (this.opts.delayMs === 0 && this.inFlight.size === 0 && this.pending.length > 0) this.flush();
    });
  }
}

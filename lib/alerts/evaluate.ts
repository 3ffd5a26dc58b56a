import type { Db, Tx } from "../db/client";
import { enqueue } from "../jobs/enqueue";
import { WORKER_LOST_CLASS } from "../jobs/poison";
import { POISON_SUSPECT_CRASHES } from "../insight/windows";
import type { Actor } from "../jobs/types";
import type { AlertKind } from "./rules";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * Evaluate every enabled alert rule (the supervisor's loop, every few seconds). Each rule
 * is evaluated in a transaction of its own that holds its row (FOR UPDATE SKIP LOCKED: a second
 * supervisor skips it), and what it finds is written in that transaction: the alert_events row, the
 * `jobscope.webhook` job that delivers it, and the rule's new cursor or firing state. So an alert is
 * sent once, and is delivered at least once by the engine.
 *
 * Event rules read the window (cursor, now − settle] — as the metrics' roll-up, the settle covers
 * statements still running — through the indexes the console uses: dead jobs by job_attempts_final_idx
 * and job_log_final_idx (their tenant variants for a tenant's rule), lease losses by
 * job_attempts_lease_lost_idx, drift by transition_rejections_kind_idx. One alert per rule and pass
 * lists up to ALERT_JOBS of what happened, and how many in all (up to ALERT_COUNT_CAP).
 * Threshold rules send an alert when their condition starts to hold (`firing`) and one when it stops
 * (`resolved`).
 */
export const ALERT_JOBS = 20;
export const ALERT_COUNT_CAP = 1_000;
/** A failure rate is not judged on fewer attempts than this. */
export const MIN_RATE_ATTEMPTS = 10;
/**
 * Staff rules' delivery jobs belong to this tenant (created with the first staff rule, by the console's
 * role: the supervisor's and workers' roles may not create tenants); a tenant's rule's to the tenant.
 */
export const SYSTEM_TENANT = "jobscope";
export const ALERTS_ACTOR: Actor = { kind: "api", id: "jobscope-alerts" };

type Rule = {
  id: string;
  name: string;
  kind: AlertKind;
  tenantId: string | null;
  queue: string | null;
  type: string | null;
  threshold: number | null;
  windowMinutes: number | null;
  cursorAt: Date | null;
  firing: boolean;
};

export type EvaluateResult = { rules: number; alerts: number };

export async function evaluateAlerts(db: Db, opts: { settleMs?: number } = {}): Promise<EvaluateResult> {
  const settleMs = opts.settleMs ?? 5_000;
  const ids = await execute<{ id: string }>(db, sql`SELECT id FROM alert_rules WHERE enabled ORDER BY created_at, id LIMIT 1000`);
  let alerts = 0;
  for (const { id } of ids) {
    alerts += (await db.transaction(async (tx) => {
      const [rule] = await execute<Rule & { until: Date }>(
        tx,
        sql`
        SELECT id, name, kind, tenant_id, queue, type, threshold, window_minutes, cursor_at, firing,
               now() - ${settleMs} * interval '1 millisecond' AS until
          FROM alert_rules WHERE id = ${id} AND enabled FOR UPDATE SKIP LOCKED`,
      );
      if (!rule) return 0;
      const found = await evaluate(tx, rule, rule.until);
      if (found.cursorAt !== undefined || found.firing !== undefined) {
        await execute(
          tx,
          sql`UPDATE alert_rules SET cursor_at = coalesce(${found.cursorAt ?? null}::timestamptz, cursor_at),
                                        firing = coalesce(${found.firing ?? null}::boolean, firing), evaluated_at = now()
                  WHERE id = ${id}`,
        );
      }
      if (!found.alert) return 0;
      await fire(tx, rule, found.alert.summary, found.alert.payload);
      return 1;
    })) as number;
  }
  return { rules: ids.length, alerts };
}

type Alert = { summary: string; payload: Record<string, unknown> };
type Found = { cursorAt?: Date; firing?: boolean; alert?: Alert };

async function evaluate(tx: Tx, rule: Rule, until: Date): Promise<Found> {
  const from = rule.cursorAt ?? until;
  switch (rule.kind) {
    case "job_dead":
      return events(from, until, () => deadJobs(tx, rule, from, until));
    case "poison_suspect":
      return events(from, until, () => poisonSuspects(tx, from, until));
    case "drift_rejection":
      return events(from, until, () => driftRejections(tx, from, until));
    case "queue_oldest_due": {
      const [r] = await execute<{ age: number | null }>(
        tx,
        sql`
        SELECT extract(epoch FROM now() - min(x.not_before))::float8 AS age FROM (
          SELECT l.not_before FROM jobs_live l WHERE l.queue = ${rule.queue} AND l.state = 'queued'
           ORDER BY l.priority, l.fair_tag, l.not_before, l.id LIMIT 1000) x
         WHERE x.not_before <= now()`,
      );
      const age = r?.age ?? 0;
      return threshold(rule, age > (rule.threshold ?? Infinity), {
        firing: `Queue ${rule.queue}: its oldest due job has waited ${Math.round(age)} s (over ${rule.threshold} s)`,
        resolved: `Queue ${rule.queue}: its oldest due job has waited ${Math.round(age)} s (back under ${rule.threshold} s)`,
        data: { queue: rule.queue, oldestDueAgeSeconds: age, thresholdSeconds: rule.threshold },
      });
    }
    case "type_failure_rate": {
      const [r] = await execute<{ failed: number; total: number }>(
        tx,
        sql`
        SELECT count(*) FILTER (WHERE outcome IN ('failed', 'lease_expired'))::int AS failed, count(*)::int AS total FROM (
          SELECT a.outcome FROM job_attempts a JOIN job_catalog c ON c.id = a.job_id
           WHERE a.finished_at > now() - ${rule.windowMinutes ?? 5} * interval '1 minute' AND a.finished_at <= now() AND c.type = ${rule.type}
           ORDER BY a.finished_at DESC LIMIT 10000) x`,
      );
      const total = r?.total ?? 0;
      const rate = total > 0 ? (100 * (r?.failed ?? 0)) / total : 0;
      const over = total >= MIN_RATE_ATTEMPTS && rate > (rule.threshold ?? Infinity);
      return threshold(rule, over, {
        firing: `Type ${rule.type}: ${rate.toFixed(1)}% of ${total} attempts failed in the last ${rule.windowMinutes} min (over ${rule.threshold}%)`,
        resolved: `Type ${rule.type}: ${rate.toFixed(1)}% of ${total} attempts failed in the last ${rule.windowMinutes} min (back under ${rule.threshold}%)`,
        data: {
          type: rule.type,
          failurePercent: rate,
          attempts: total,
          failed: r?.failed ?? 0,
          thresholdPercent: rule.threshold,
          windowMinutes: rule.windowMinutes,
        },
      });
    }
  }
}

/**
 * An event rule's pass over (from, until]: nothing to read while the window is empty; the cursor
 * moves to `until` whatever the rule finds, and what it finds, if anything, is one alert.
 */
async function events(from: Date, until: Date, find: () => Promise<Alert | null>): Promise<Found> {
  if (until <= from) return {};
  const alert = await find();
  return alert ? { cursorAt: until, alert: { summary: alert.summary, payload: { status: "firing", ...alert.payload } } } : { cursorAt: until };
}

/** Jobs that went dead in the window, by a worker's attempt or by a transition no worker applied, each with its last error. */
async function deadJobs(tx: Tx, rule: Rule, from: Date, until: Date): Promise<Alert | null> {
  const rows = await execute<{
    jobId: string;
    tenantId: string;
    type: string;
    queue: string;
    at: Date;
    errorClass: string | null;
    errorMessage: string | null;
  }>(
    tx,
    sql`
    SELECT d.job_id, c.tenant_id, c.type, c.queue, d.at, last.error_class, left(last.error_message, 500) AS error_message
      FROM (SELECT a.job_id, a.finished_at AS at FROM job_attempts a
             WHERE a.end_to = 'dead' AND a.finished_at > ${from} AND a.finished_at <= ${until}
               AND (${rule.tenantId}::text IS NULL OR a.tenant_id = ${rule.tenantId}::text)
            UNION ALL
            SELECT e.job_id, e.at FROM job_log e
             WHERE e.to_state = 'dead' AND e.at > ${from} AND e.at <= ${until}
               AND (${rule.tenantId}::text IS NULL OR e.tenant_id = ${rule.tenantId}::text)) d
      JOIN job_catalog c ON c.id = d.job_id
      LEFT JOIN LATERAL (SELECT error_class, error_message FROM job_attempts x WHERE x.job_id = d.job_id ORDER BY x.attempt DESC LIMIT 1) last ON true
     WHERE (${rule.queue}::text IS NULL OR c.queue = ${rule.queue}::text) AND (${rule.type}::text IS NULL OR c.type = ${rule.type}::text)
     ORDER BY d.at LIMIT ${ALERT_COUNT_CAP}`,
  );
  const [first] = rows;
  if (!first) return null;
  const total = rows.length;
  const summary =
    total === 1
      ? `Job ${first.jobId} (${first.type}, queue ${first.queue}) went dead${first.errorClass ? `: ${first.errorClass}` : ""}`
      : `${total}${total >= ALERT_COUNT_CAP ? "+" : ""} jobs went dead, the first ${first.jobId} (${first.type})`;
  return { summary, payload: { total, capped: total >= ALERT_COUNT_CAP, jobs: rows.slice(0, ALERT_JOBS) } };
}

/**
 * Jobs that lost an attempt in the window and are blamed for two or more worker crashes
 * (lib/jobs/poison.ts); a bystander's lost attempt (WorkerLost) is not a crash.
 */
async function poisonSuspects(tx: Tx, from: Date, until: Date): Promise<Alert | null> {
  const rows = await execute<{ jobId: string; tenantId: string; type: string; queue: string; crashes: number }>(
    tx,
    sql`
    SELECT s.job_id, c.tenant_id, c.type, c.queue, s.crashes FROM (
      SELECT n.job_id, (SELECT count(*)::int FROM job_attempts x WHERE x.job_id = n.job_id AND x.outcome = 'lease_expired'
                          AND x.error_class IS DISTINCT FROM ${WORKER_LOST_CLASS}) AS crashes
        FROM (SELECT DISTINCT job_id FROM job_attempts
               WHERE outcome = 'lease_expired' AND error_class IS DISTINCT FROM ${WORKER_LOST_CLASS}
                 AND finished_at > ${from} AND finished_at <= ${until} LIMIT ${ALERT_COUNT_CAP}) n) s
      JOIN job_catalog c ON c.id = s.job_id
     WHERE s.crashes >= ${POISON_SUSPECT_CRASHES} ORDER BY s.crashes DESC, s.job_id`,
  );
  const [first] = rows;
  if (!first) return null;
  const summary = `${rows.length} poison-job suspect(s): job ${first.jobId} (${first.type}) was blamed for ${first.crashes} worker crashes`;
  return { summary, payload: { total: rows.length, jobs: rows.slice(0, ALERT_JOBS) } };
}

/** Drift rejections in the window: something changed a job's state outside the write path. */
async function driftRejections(tx: Tx, from: Date, until: Date): Promise<Alert | null> {
  const rows = await execute<{
    id: number;
    jobId: string;
    event: string;
    actorKind: string;
    actorId: string;
    expectedState: string | null;
    currentState: string | null;
    reason: string;
    at: Date;
  }>(
    tx,
    sql`
    SELECT id, job_id, event, actor_kind, actor_id, expected_state, current_state, reason, at FROM transition_rejections
     WHERE kind = 'drift' AND at > ${from} AND at <= ${until} ORDER BY at LIMIT ${ALERT_COUNT_CAP}`,
  );
  const [first] = rows;
  if (!first) return null;
  const summary = `${rows.length} drift rejection(s): a job's state changed outside the write path (job ${first.jobId}: ${first.reason})`;
  return { summary, payload: { total: rows.length, rejections: rows.slice(0, ALERT_JOBS) } };
}

function threshold(rule: Rule, holds: boolean, text: { firing: string; resolved: string; data: Record<string, unknown> }): Found {
  if (holds === rule.firing) return { firing: holds };
  return { firing: holds, alert: { summary: holds ? text.firing : text.resolved, payload: { status: holds ? "firing" : "resolved", ...text.data } } };
}

/** Record the alert and submit its delivery job, in the caller's transaction. */
export async function fire(
  tx: Tx,
  rule: { id: string; tenantId: string | null },
  summary: string,
  payload: Record<string, unknown>,
): Promise<{ eventId: number; jobId: string }> {
  const tenant = rule.tenantId ?? SYSTEM_TENANT;
  const [event] = await execute<{ id: number }>(
    tx,
    sql`
    INSERT INTO alert_events (rule_id, tenant_id, summary, payload) VALUES (${rule.id}, ${rule.tenantId}, ${summary}, ${sql.param(payload)})
    RETURNING id`,
  );
  const { job } = await enqueue(tx, { tenantId: tenant, type: "jobscope.webhook", params: { eventId: Number(event!.id) } }, ALERTS_ACTOR);
  await execute(tx, sql`UPDATE alert_events SET job_id = ${job.id} WHERE id = ${event!.id}`);
  return { eventId: Number(event!.id), jobId: job.id };
}

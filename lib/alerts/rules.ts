import "server-only";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { desc, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { AppError, describeInvalid } from "../result";
import { columnList, columnsExcept, execute, run } from "../db/drizzle";
import { ALERT_KINDS, alertRules } from "../db/schema-observability";
import { destinationPolicy, refusedHost } from "./destination";
import { SYSTEM_TENANT } from "./evaluate";

/**
 * Alert rules. An operator's rule (tenant_id NULL) may watch anything; a tenant's rule
 * only its own tenant's dead jobs (the database refuses anything else: alert_rules_tenant_dead_only).
 * The supervisor evaluates them (evaluate.ts) and each alert is delivered by a `jobscope.webhook`
 * job (webhook.ts).
 */
export { ALERT_KINDS };
export type AlertKind = (typeof ALERT_KINDS)[number];

const url = z
  .string()
  .trim()
  .max(2000)
  .pipe(z.url({ protocol: /^https?$/, error: "an http(s) URL" }));
const name = z.string().trim().min(1, "a name").max(100);
const queue = z.string().regex(/^[a-z0-9_.-]{1,100}$/, "a queue name (lowercase letters, digits, _ . -)");
const type = z.string().trim().min(1).max(200);

export const AlertRuleInput = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("job_dead"), name, url, queue: queue.optional(), type: type.optional() }),
  z.strictObject({ kind: z.literal("poison_suspect"), name, url }),
  z.strictObject({ kind: z.literal("drift_rejection"), name, url }),
  z.strictObject({
    kind: z.literal("queue_oldest_due"),
    name,
    url,
    queue,
    thresholdSeconds: z
      .number()
      .int()
      .min(1)
      .max(7 * 86_400),
  }),
  z.strictObject({
    kind: z.literal("type_failure_rate"),
    name,
    url,
    type,
    thresholdPercent: z.number().min(1).max(100),
    windowMinutes: z.number().int().min(1).max(1_440),
  }),
]);
export type AlertRuleInput = z.input<typeof AlertRuleInput>;

/** What a list or a change returns of a rule: not its secret, nor the evaluation's cursor, nor who changed it last. */
const ruleColumns = columnsExcept(alertRules, "secret", "cursorAt", "cursorId", "updatedAt", "updatedBy");
export type AlertRule = Pick<typeof alertRules.$inferSelect, keyof typeof ruleColumns>;

/** Who owns a rule: the staff, or one tenant (which may only watch its own dead jobs). */
export type RuleOwner = { staff: true } | { tenantId: string };

const allowPrivate = () => process.env.JOBSCOPE_ALERTS_ALLOW_PRIVATE === "1";

/** Validate and store a rule. Returns it with its signing secret (shown once, to its creator). */
export async function createAlertRule(db: Db, raw: unknown, owner: RuleOwner, by: string): Promise<{ rule: AlertRule; secret: string }> {
  const parsed = AlertRuleInput.safeParse(raw);
  if (!parsed.success) throw new AppError("invalid_input", describeInvalid(parsed.error));
  const input = parsed.data;
  const tenantId = "tenantId" in owner ? owner.tenantId : null;
  if (tenantId !== null) {
    if (input.kind !== "job_dead") throw new AppError("forbidden", "a tenant's alert can only be about its own dead jobs");
    // A name is decided per resolved address at each delivery (lib/alerts/destination.ts); an address or a name of this machine is refused now.
    const why = allowPrivate() ? null : refusedHost(new URL(input.url).hostname, destinationPolicy());
    if (why) throw new AppError("invalid_input", `url: ${why} cannot receive a tenant's alerts`);
  }
  // A staff rule's deliveries are jobs of the system tenant (evaluate.ts): it exists from the first staff rule on.
  if (tenantId === null)
    await execute(db, sql`INSERT INTO tenants (id, name) VALUES (${SYSTEM_TENANT}, 'Jobscope (system)') ON CONFLICT (id) DO NOTHING`);
  const secret = `whsec_${randomBytes(24).toString("hex")}`;
  const threshold = input.kind === "queue_oldest_due" ? input.thresholdSeconds : input.kind === "type_failure_rate" ? input.thresholdPercent : null;
  const windowMinutes = input.kind === "type_failure_rate" ? input.windowMinutes : null;
  const q = "queue" in input ? (input.queue ?? null) : null;
  const t = "type" in input ? (input.type ?? null) : null;
  const [rule] = await execute<AlertRule>(
    db,
    sql`
    INSERT INTO alert_rules (name, kind, tenant_id, queue, type, threshold, window_minutes, url, secret, cursor_at, created_by, updated_by)
    VALUES (${input.name}, ${input.kind}, ${tenantId}, ${q}, ${t}, ${threshold}, ${windowMinutes}, ${input.url}, ${secret}, now(), ${by}, ${by})
    RETURNING ${columnList(ruleColumns)}`,
  );
  return { rule: rule!, secret };
}

/** Enable or disable a rule the caller can see (row-level security hides other tenants' rules). Null: no such rule. */
export async function setAlertRuleEnabled(db: Db, id: string, enabled: boolean, by: string): Promise<AlertRule | null> {
  // Re-enabled: it starts from now, not from where it stopped (no flood of what happened meanwhile).
  const [rule] = await execute<AlertRule>(
    db,
    sql`
    UPDATE alert_rules SET enabled = ${enabled}, updated_at = now(), updated_by = ${by},
           cursor_at = CASE WHEN ${enabled} AND NOT enabled THEN now() ELSE cursor_at END,
           firing = CASE WHEN ${enabled} THEN firing ELSE false END
     WHERE id = ${id} RETURNING ${columnList(ruleColumns)}`,
  );
  return rule ?? null;
}

export type AlertDelivery = {
  eventId: number;
  ruleId: string;
  ruleName: string;
  tenantId: string | null;
  at: Date;
  summary: string;
  jobId: string | null;
  state: string | null;
  attempt: number | null;
  maxAttempts: number | null;
  attempts: { attempt: number; outcome: string; finishedAt: string; error: string | null }[];
};

/** The newest alerts the caller can see, with the state of each delivery job and its attempts. */
export async function listAlertDeliveries(db: Db, limit = 50): Promise<AlertDelivery[]> {
  return execute<AlertDelivery>(
    db,
    sql`
    SELECT e.id AS event_id, e.rule_id, r.name AS rule_name, e.tenant_id, e.at, e.summary, e.job_id,
           j.state::text AS state, j.attempt, j.max_attempts,
           coalesce((SELECT json_agg(json_build_object('attempt', a.attempt, 'outcome', a.outcome, 'finishedAt', a.finished_at,
                                                       'error', CASE WHEN a.error_class IS NULL THEN NULL ELSE a.error_class || ': ' || left(a.error_message, 300) END)
                                     ORDER BY a.attempt)
                       FROM job_attempts a WHERE a.job_id = e.job_id), '[]'::json) AS attempts
      FROM alert_events e JOIN alert_rules r ON r.id = e.rule_id
      LEFT JOIN LATERAL (SELECT state, attempt, max_attempts FROM jobs WHERE id = e.job_id) j ON true
     ORDER BY e.id DESC LIMIT ${limit}`,
  );
}

export async function listAlertRules(db: Db): Promise<AlertRule[]> {
  return run(db.select(ruleColumns).from(alertRules).orderBy(desc(alertRules.createdAt), alertRules.id).limit(500));
}

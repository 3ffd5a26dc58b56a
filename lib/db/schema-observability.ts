import { sql } from "drizzle-orm";
import { bigint, boolean, check, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { authored, checkKnown, fkey, keyDesc, serialId, tz } from "./columns";
import { tenants } from "./schema";

/** What an alert rule watches (lib/alerts/evaluate.ts); the CHECK on alert_rules.kind lists the same. */
export const ALERT_KINDS = ["job_dead", "poison_suspect", "drift_rejection", "queue_oldest_due", "type_failure_rate"] as const;

/**
 * Metric counters and histograms, rolled up from the history by the supervisor's tick
 * (lib/metrics/rollup.ts); GET /metrics reads them (drizzle/0020_observability.sql).
 */
export const metricTotals = pgTable(
  "metric_totals",
  {
    metric: text("metric").notNull(),
    queue: text("queue").notNull().default(""),
    type: text("type").notNull().default(""),
    /** The series' other label (an outcome, a rejection kind, a histogram bucket's upper bound). */
    label: text("label").notNull().default(""),
    value: doublePrecision("value").notNull().default(0),
  },
  (t) => [primaryKey({ name: "metric_totals_pkey", columns: [t.metric, t.queue, t.type, t.label] })],
);

/**
 * The same increments per job type and hour (`bucket`, the hour's start), kept 35 days: the per-type
 * history charts (duration p50/p95 from the run histogram, throughput and failure rate from the
 * attempts by outcome) read them instead of the history (lib/metrics/history.ts). A pass of the
 * roll-up never spans two hours, so each of its increments belongs to one bucket.
 */
export const metricHistory = pgTable(
  "metric_history",
  {
    type: text("type").notNull(),
    bucket: tz("bucket").notNull(),
    metric: text("metric").notNull(),
    queue: text("queue").notNull().default(""),
    label: text("label").notNull().default(""),
    value: doublePrecision("value").notNull().default(0),
  },
  (t) => [
    primaryKey({ name: "metric_history_pkey", columns: [t.type, t.bucket, t.metric, t.queue, t.label] }),
    index("metric_history_bucket_idx").on(t.bucket),
  ],
);

/** How far the roll-up has read each source, moved in one transaction with the totals. */
export const metricCursors = pgTable("metric_cursors", {
  source: text("source").primaryKey(),
  uptoAt: tz("upto_at"),
  uptoId: bigint("upto_id", { mode: "number" }),
  updatedAt: tz("updated_at").notNull().defaultNow(),
});

/**
 * An alert rule (lib/alerts): the staff's (tenant_id null) or one tenant's, which can only be
 * about its own dead jobs.
 */
export const alertRules = pgTable(
  "alert_rules",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    kind: text("kind").$type<(typeof ALERT_KINDS)[number]>().notNull(),
    tenantId: text("tenant_id"),
    queue: text("queue"),
    type: text("type"),
    /** queue_oldest_due: seconds; type_failure_rate: a percentage. */
    threshold: doublePrecision("threshold"),
    windowMinutes: integer("window_minutes"),
    url: text("url").notNull(),
    secret: text("secret").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    /** Event rules: what was already looked at. */
    cursorAt: tz("cursor_at"),
    cursorId: bigint("cursor_id", { mode: "number" }),
    /** Threshold rules: whether the condition held at the last evaluation. */
    firing: boolean("firing").notNull().default(false),
    evaluatedAt: tz("evaluated_at"),
    ...authored(),
  },
  (t) => [
    fkey("alert_rules", t.tenantId, tenants.id),
    checkKnown("alert_rules", t.kind, ALERT_KINDS),
    check("alert_rules_tenant_dead_only", sql`${t.tenantId} IS NULL OR ${t.kind} = 'job_dead'`),
    check("alert_rules_name_length", sql`length(${t.name}) BETWEEN 1 AND 100`),
    check("alert_rules_url_length", sql`length(${t.url}) BETWEEN 1 AND 2000`),
    index("alert_rules_tenant_idx").on(t.tenantId, t.createdAt),
  ],
);

/** One row per alert sent, and the `jobscope.webhook` job that delivers it. */
export const alertEvents = pgTable(
  "alert_events",
  {
    id: serialId(),
    ruleId: uuid("rule_id").notNull(),
    tenantId: text("tenant_id"),
    at: tz("at").notNull().defaultNow(),
    summary: text("summary").notNull(),
    payload: jsonb("payload").notNull(),
    jobId: uuid("job_id"),
  },
  (t) => [
    fkey("alert_events", t.ruleId, alertRules.id),
    index("alert_events_rule_idx").on(t.ruleId, keyDesc(t.id)),
    index("alert_events_at_idx").on(keyDesc(t.at)),
  ],
);

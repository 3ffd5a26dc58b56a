import { sql, type SQL } from "drizzle-orm";
import {
  bigint,
  check,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import {
  ACTOR_KINDS,
  EVENTS,
  HEARTBEAT_STATES,
  LEASED_STATES,
  REJECTION_KINDS,
  RUN_OUTCOMES,
  STATES,
  TERMINAL_STATES,
} from "../fsm/table";


export const jobState = pgEnum("job_state", STATES);
export const jobEvent = pgEnum("job_event", EVENTS);
export const actorKind = pgEnum("actor_kind", ACTOR_KINDS);
export const runOutcome = pgEnum("run_outcome", RUN_OUTCOMES);
export const rejectionKind = pgEnum("rejection_kind", REJECTION_KINDS);

/** `state IN ('a', 'b')` from a list in the state machine table. */
const stateIn = (states: readonly string[]): SQL => sql.raw(`state IN (${states.map((s) => `'${s}'`).join(", ")})`);
const tz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const tenants = pgTable("tenants", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: tz("created_at").notNull().defaultNow(),
  /** Set while the tenant is suspended: its members cannot sign in and its API keys are refused (drizzle/0014). */
  suspendedAt: tz("suspended_at"),
});

export const jobs = pgTable(
  "jobs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id),
    type: text("type").notNull(),
    queue: text("queue").notNull().default("default"),
    /** Lower runs sooner. */
    priority: smallint("priority").notNull().default(0),
    state: jobState("state").notNull().default("queued"),
    attempt: integer("attempt").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull(),
    stateVersion: integer("state_version").notNull().default(0),
    leaseOwner: text("lease_owner"),
    heartbeatAt: tz("heartbeat_at"),
    notBefore: tz("not_before").notNull().defaultNow(),
    params: jsonb("params").notNull().default({}),
    idempotencyKey: text("idempotency_key"),
    createdAt: tz("created_at").notNull().defaultNow(),
    updatedAt: tz("updated_at").notNull().defaultNow(),
    finishedAt: tz("finished_at"),
  },
  (t) => [
    check("jobs_attempt_range", sql`${t.attempt} >= 0 AND ${t.attempt} <= ${t.maxAttempts}`),
    check("jobs_max_attempts_positive", sql`${t.maxAttempts} >= 1`),
    check("jobs_version_nonnegative", sql`${t.stateVersion} >= 0`),
    check("jobs_priority_range", sql`${t.priority} BETWEEN 0 AND 9`),
    check("jobs_terminal_iff_finished", sql`(${stateIn(TERMINAL_STATES)}) = (${t.finishedAt} IS NOT NULL)`),
    check("jobs_leased_iff_owner", sql`(${stateIn(LEASED_STATES)}) = (${t.leaseOwner} IS NOT NULL)`),
    check("jobs_type_nonempty", sql`length(${t.type}) BETWEEN 1 AND 200 AND length(${t.queue}) BETWEEN 1 AND 100`),
    // The dispatcher's claim: only queued rows, in claim order.
    index("jobs_claim_idx").on(t.queue, t.priority, t.notBefore, t.id).where(sql`state = 'queued'`),
    // The supervisor's scan for stale leases touches only live work (seed 001).
    // Keyed on lease_owner, not heartbeat_at, so heartbeats are HOT updates (drizzle/0007_scale.sql).
    index("jobs_live_lease_idx").on(t.leaseOwner).where(stateIn(HEARTBEAT_STATES)),
    // The supervisor's promotion of due retries.
    index("jobs_retry_due_idx").on(t.notBefore).where(sql`state = 'retry_wait'`),
    uniqueIndex("jobs_idempotency_key_idx").on(t.tenantId, t.idempotencyKey).where(sql`idempotency_key IS NOT NULL`),
    // The console: lists by state, by tenant and overall, newest first, keyset on (created_at, id).
    index("jobs_state_created_idx").on(t.state, t.createdAt.desc(), t.id.desc()),
    index("jobs_tenant_created_idx").on(t.tenantId, t.createdAt.desc(), t.id.desc()),
    index("jobs_created_idx").on(t.createdAt.desc(), t.id.desc()),
    index("jobs_type_created_idx").on(t.type, t.createdAt.desc(), t.id.desc()),
    index("jobs_queue_created_idx").on(t.queue, t.createdAt.desc(), t.id.desc()),
    // The state tabs' capped counts under a tenant filter.
    index("jobs_tenant_state_idx").on(t.tenantId, t.state),
    index("jobs_finished_idx").on(t.finishedAt.desc(), t.id.desc()).where(sql`finished_at IS NOT NULL`),
    // The dead-jobs page: a group's pages, and the capped groups query over the newest dead jobs.
    index("jobs_dead_type_finished_idx").on(t.type, t.finishedAt.desc(), t.id.desc()).where(sql`state = 'dead'`),
    index("jobs_dead_finished_idx").on(t.finishedAt.desc(), t.id.desc()).where(sql`state = 'dead'`),
  ],
);

/** One row per attempt, append-only: opened by the claim, closed once with an outcome. */
export const jobRuns = pgTable(
  "job_runs",
  {
    // No foreign key to jobs: the write path writes history with its job (drizzle/0007_scale.sql).
    jobId: uuid("job_id").notNull(),
    attempt: integer("attempt").notNull(),
    tenantId: text("tenant_id").notNull(),
    workerId: text("worker_id").notNull(),
    claimedAt: tz("claimed_at").notNull(),
    startedAt: tz("started_at"),
    finishedAt: tz("finished_at"),
    outcome: runOutcome("outcome"),
    errorClass: text("error_class"),
    errorMessage: text("error_message"),
    result: jsonb("result"),
  },
  (t) => [
    primaryKey({ columns: [t.jobId, t.attempt] }),
    check("job_runs_attempt_positive", sql`${t.attempt} >= 1`),
    check("job_runs_closed_iff_outcome", sql`(${t.outcome} IS NULL) = (${t.finishedAt} IS NULL)`),
    index("job_runs_worker_idx").on(t.workerId, t.claimedAt.desc()),
    // The console's error-class filter and the dead-jobs groups.
    index("job_runs_error_class_idx").on(t.errorClass, t.jobId).where(sql`error_class IS NOT NULL`),
    index("job_runs_finished_idx").on(t.finishedAt.desc()).where(sql`finished_at IS NOT NULL`),
  ],
);

/**
 * The append-only log of every applied transition: one row per state_version.
 * PARTITIONED BY RANGE (at), one partition per UTC day (drizzle/0009_partition_events.sql,
 * which drizzle-kit cannot express): keys include `at`, and one event per version is the
 * write path's compare-and-set, not a constraint (docs/decisions.md, "Partitioned job_events").
 */
export const jobEvents = pgTable(
  "job_events",
  {
    id: bigint("id", { mode: "number" }).generatedAlwaysAsIdentity(),
    // No foreign key to jobs: the write path writes history with its job (drizzle/0007_scale.sql).
    jobId: uuid("job_id").notNull(),
    tenantId: text("tenant_id").notNull(),
    event: jobEvent("event").notNull(),
    fromState: jobState("from_state"),
    toState: jobState("to_state").notNull(),
    actorKind: actorKind("actor_kind").notNull(),
    actorId: text("actor_id").notNull(),
    attempt: integer("attempt").notNull(),
    stateVersion: integer("state_version").notNull(),
    at: tz("at").notNull().defaultNow(),
    payload: jsonb("payload"),
  },
  (t) => [
    primaryKey({ name: "job_events_pkey", columns: [t.id, t.at] }),
    check("job_events_submit_has_no_from", sql`(${t.fromState} IS NULL) = (${t.event} = 'submit')`),
    index("job_events_at_idx").on(t.at.desc()),
    index("job_events_job_version_cover_idx").on(t.jobId, t.stateVersion.desc()),
  ],
);

/** Every refused transition and why. No foreign key: a refusal may name a job that does not exist. */
export const transitionRejections = pgTable(
  "transition_rejections",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    jobId: uuid("job_id").notNull(),
    tenantId: text("tenant_id"),
    event: jobEvent("event").notNull(),
    kind: rejectionKind("kind").notNull(),
    actorKind: actorKind("actor_kind").notNull(),
    actorId: text("actor_id").notNull(),
    expectedState: jobState("expected_state"),
    expectedVersion: integer("expected_version"),
    currentState: jobState("current_state"),
    currentVersion: integer("current_version"),
    reason: text("reason").notNull(),
    at: tz("at").notNull().defaultNow(),
  },
  (t) => [
    index("transition_rejections_at_idx").on(t.at.desc()),
    index("transition_rejections_job_idx").on(t.jobId),
    index("transition_rejections_kind_idx").on(t.kind, t.at.desc()),
  ],
);

export const workers = pgTable("workers", {
  id: text("id").primaryKey(),
  host: text("host").notNull(),
  pid: integer("pid").notNull(),
  queues: text("queues").array().notNull(),
  concurrency: integer("concurrency").notNull(),
  startedAt: tz("started_at").notNull().defaultNow(),
  lastSeenAt: tz("last_seen_at").notNull().defaultNow(),
  stoppedAt: tz("stopped_at"),
});

export const BULK_STATUSES = ["running", "done", "failed"] as const;
export const bulkStatus = pgEnum("bulk_status", BULK_STATUSES);

/**
 * A bulk action confirmed in the console. Its selection is frozen at
 * confirmation in `bulk_operation_items` (each job with the state and version
 * the dry run saw), so jobs that arrive later are never swept in.
 */
export const bulkOperations = pgTable("bulk_operations", {
  id: uuid("id").primaryKey().defaultRandom(),
  event: jobEvent("event").notNull(),
  actorKind: actorKind("actor_kind").notNull(),
  actorId: text("actor_id").notNull(),
  /** What was selected, in words: "12 selected jobs", "dead · media.render · OutOfMemoryError". */
  description: text("description").notNull(),
  total: integer("total").notNull(),
  status: bulkStatus("status").notNull().default("running"),
  createdAt: tz("created_at").notNull().defaultNow(),
  finishedAt: tz("finished_at"),
});

export const bulkOperationItems = pgTable(
  "bulk_operation_items",
  {
    operationId: uuid("operation_id").notNull().references(() => bulkOperations.id),
    jobId: uuid("job_id").notNull(),
    expectedState: jobState("expected_state").notNull(),
    expectedVersion: integer("expected_version").notNull(),
    /** null until processed; "applied" or a rejection kind. */
    outcome: text("outcome"),
    reason: text("reason"),
  },
  (t) => [primaryKey({ columns: [t.operationId, t.jobId] })],
);

import { sql, type SQL } from "drizzle-orm";
import {
  bigint,
  check,
  doublePrecision,
  foreignKey,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  smallint,
  text,
  uniqueIndex,
  uuid,
  type ExtraConfigColumn,
} from "drizzle-orm/pg-core";
import { ACTOR_KINDS, EVENTS, HEARTBEAT_STATES, LEASED_STATES, REJECTION_KINDS, RUN_OUTCOMES, STATES, TERMINAL_STATES } from "../fsm/table";
import { fkey, jobId, keyDesc, serialId, sqlList, tenantId, tz } from "./columns";

export const jobState = pgEnum("job_state", STATES);
export const jobEvent = pgEnum("job_event", EVENTS);
export const actorKind = pgEnum("actor_kind", ACTOR_KINDS);
export const runOutcome = pgEnum("run_outcome", RUN_OUTCOMES);
export const rejectionKind = pgEnum("rejection_kind", REJECTION_KINDS);

/** Who did it: the kind of actor (lib/fsm/table.ts, ACTOR_KINDS) and its id. */
export const actor = () => ({
  actorKind: actorKind("actor_kind").notNull(),
  actorId: text("actor_id").notNull(),
});

/** Whose job it is, what it runs and where, as submitted: the catalog row's, copied onto the live row. */
const jobRouting = () => ({
  tenantId: tenantId(),
  type: text("type").notNull(),
  queue: text("queue").notNull(),
  /** Lower runs sooner. */
  priority: smallint("priority").notNull(),
});

/** `state IN ('a', 'b')` from a list in the state machine table. */
const stateIn = (states: readonly string[]): SQL => sql`state IN (${sqlList(states)})`;

export const tenants = pgTable("tenants", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: tz("created_at").notNull().defaultNow(),
  /** Set while the tenant is suspended: its members cannot sign in and its API keys are refused (drizzle/0014). */
  suspendedAt: tz("suspended_at"),
});

/**
 * What was submitted: one row per job, written once by `enqueue`, never updated (only retention
 * deletes it). It carries the console's keyset indexes, so no state change pays for them.
 * The job's state lives in `jobs_live` while it is not finished; once it is, its state is its last
 * transition, an attempt's closing event or a `job_log` row (drizzle/0012_narrow_hot_path.sql,
 * `job_last_transition`); the `jobs` view joins them back into one row.
 */
export const jobCatalog = pgTable(
  "job_catalog",
  {
    /** Time-ordered (UUID version 7, lib/jobs/ids.ts). */
    id: uuid("id").primaryKey(),
    ...jobRouting(),
    /** The attempt budget at submit (the live or done row holds the current one). */
    maxAttempts: integer("max_attempts").notNull(),
    params: jsonb("params").notNull(),
    idempotencyKey: text("idempotency_key"),
    submittedByKind: actorKind("submitted_by_kind").notNull(),
    submittedBy: text("submitted_by").notNull(),
    createdAt: tz("created_at").notNull(),
    /** When the job was first claimable, as submitted. */
    notBefore: tz("not_before").notNull(),
    /** The W3C trace context of the request that submitted the job; each attempt's span continues it (drizzle/0020). */
    traceContext: jsonb("trace_context"),
  },
  (t) => [
    fkey("job_catalog", t.tenantId, tenants.id),
    check("job_catalog_max_attempts_positive", sql`${t.maxAttempts} >= 1`),
    check("job_catalog_priority_range", sql`${t.priority} BETWEEN 0 AND 9`),
    check("job_catalog_type_nonempty", sql`length(${t.type}) BETWEEN 1 AND 200 AND length(${t.queue}) BETWEEN 1 AND 100`),
    index("job_catalog_created_idx").on(t.createdAt.desc(), t.id.desc()),
    index("job_catalog_tenant_created_idx").on(t.tenantId, t.createdAt.desc(), t.id.desc()),
    index("job_catalog_type_created_idx").on(t.type, t.createdAt.desc(), t.id.desc()),
    index("job_catalog_queue_created_idx").on(t.queue, t.createdAt.desc(), t.id.desc()),
    index("job_catalog_tenant_type_created_idx").on(t.tenantId, t.type, t.createdAt.desc()),
    uniqueIndex("job_catalog_idempotency_key_idx")
      .on(t.tenantId, t.idempotencyKey)
      .where(sql`idempotency_key IS NOT NULL`),
    // The lookup of a pasted piece of an id's end (lib/jobs/id-lookup.ts): the last 12 hex digits,
    // reversed, as a number, so any suffix is a range of this index (drizzle/0025).
    index("job_catalog_id_suffix_idx").on(sql`(('x' || reverse(right((${t.id})::text, 12)))::bit(48)::bigint)`),
    // The jobs list's params search, a containment (0024; lib/jobs/list-source.ts, fromParams).
    index("job_catalog_params_idx").using("gin", t.params.op("jsonb_path_ops")),
  ],
);

/** States a worker's claim moves a job into: the console's indexes on the live row leave them out. */
const CLAIM_ENTERED = ["claimed", "running"] as const satisfies readonly (typeof STATES)[number][];
/** The live states a claim does not enter: the console's live tabs that have their own indexes. */
const WAITING_STATES = STATES.filter((s) => !(CLAIM_ENTERED as readonly string[]).includes(s) && !(TERMINAL_STATES as readonly string[]).includes(s));

/** The live row's columns that the `jobs` view also has (lib/db/schema-views.ts). */
export const liveJobColumns = () => ({
  ...jobRouting(),
  state: jobState("state").notNull(),
  attempt: integer("attempt").notNull(),
  maxAttempts: integer("max_attempts").notNull(),
  stateVersion: integer("state_version").notNull(),
  leaseOwner: text("lease_owner"),
  heartbeatAt: tz("heartbeat_at"),
  /** When a live job becomes claimable; for a finished job (in the view), the one it was submitted with. */
  notBefore: tz("not_before").notNull(),
  params: jsonb("params").notNull(),
  createdAt: tz("created_at").notNull(),
  updatedAt: tz("updated_at").notNull(),
});

/**
 * The engine's hot row, for jobs that are not finished. Every index here takes an entry on every
 * transition, so it has only the engine's (claim, lease, retry due) and two console indexes whose
 * predicate leaves out the states a claim enters. `run_*` describe the current attempt while the
 * job is leased (and the last one after: the statement that closes an attempt copies them).
 */
export const jobsLive = pgTable(
  "jobs_live",
  {
    id: uuid("id").primaryKey(),
    ...liveJobColumns(),
    runWorker: text("run_worker"),
    runClaimedAt: tz("run_claimed_at"),
    runStartedAt: tz("run_started_at"),
    /** The state_version of the attempt's claim event. */
    runVersion: integer("run_version"),
    /** A fair queue's claim order between tenants, given at submit; 0 on queues that are not fair (drizzle/0016). */
    fairTag: bigint("fair_tag", { mode: "number" }).notNull().default(0),
    /**
     * The handler's last `ctx.progress(done, total)`, written by the worker's heartbeat (the same HOT
     * update, at most once a second), never by a transition; it is the current attempt's only while
     * `progress_attempt = attempt` (a new attempt's claim does not clear it). Null until reported.
     */
    progressAttempt: integer("progress_attempt"),
    progressDone: doublePrecision("progress_done"),
    progressTotal: doublePrecision("progress_total"),
  },
  (t) => [
    foreignKey({ name: "jobs_live_catalog_fk", columns: [t.id], foreignColumns: [jobCatalog.id] }),
    check("jobs_live_not_terminal", sql`${t.state} NOT IN (${sqlList(TERMINAL_STATES)})`),
    check("jobs_live_attempt_range", sql`${t.attempt} >= 0 AND ${t.attempt} <= ${t.maxAttempts}`),
    check("jobs_live_version_nonnegative", sql`${t.stateVersion} >= 0`),
    check("jobs_live_leased_iff_owner", sql`(${stateIn(LEASED_STATES)}) = (${t.leaseOwner} IS NOT NULL)`),
    check(
      "jobs_live_leased_has_run",
      sql`${t.leaseOwner} IS NULL OR (${t.runWorker} = ${t.leaseOwner} AND ${t.runClaimedAt} IS NOT NULL AND ${t.runVersion} IS NOT NULL)`,
    ),
    // The dispatcher's claim: only queued rows, in claim order (a fair queue's in tag order within a priority).
    index("jobs_live_claim_idx")
      .on(t.queue, t.priority, t.fairTag, t.notBefore, t.id)
      .where(sql`state = 'queued'`),
    // A fair queue's head, and each tenant's last tag: where a new job's tag goes.
    index("jobs_live_fair_head_idx")
      .on(t.queue, t.fairTag)
      .where(sql`state = 'queued' AND fair_tag > 0`),
    index("jobs_live_fair_tenant_idx")
      .on(t.queue, t.tenantId, t.fairTag)
      .where(sql`state = 'queued' AND fair_tag > 0`),
    // The supervisor's scan for stale leases, keyed on lease_owner so heartbeats stay HOT; by queue
    // for a capped queue's count of leased jobs.
    index("jobs_live_lease_idx").on(t.queue, t.leaseOwner).where(stateIn(HEARTBEAT_STATES)),
    // The supervisor's promotion of due retries.
    index("jobs_live_retry_due_idx")
      .on(t.notBefore)
      .where(sql`state = 'retry_wait'`),
    // The console's live tabs, newest first, on the states a claim does not enter.
    index("jobs_live_waiting_idx")
      .on(t.state, t.createdAt.desc(), t.id.desc())
      .where(sql`state NOT IN (${sqlList(CLAIM_ENTERED)})`),
    // A tenant's live tabs: one index per state (0019), which the planner picks from the query's
    // constant state even under the tenant policy (docs/decisions.md, "The console's reads…").
    ...WAITING_STATES.map((state) =>
      index(`jobs_live_tenant_${state}_idx`)
        .on(t.tenantId, t.state, t.createdAt.desc(), t.id.desc())
        .where(sql.raw(`state = '${state}'`)),
    ),
  ],
);

/**
 * A history table's indexes for the console's finished tabs, newest first: the jobs whose `state`
 * column names a terminal state, and one index per terminal state for a tenant's tabs (0019).
 */
const finishedIndexes = (table: string, tenantId: ExtraConfigColumn, state: ExtraConfigColumn, at: ExtraConfigColumn, jobId: ExtraConfigColumn) => [
  index(`${table}_final_idx`)
    .on(state, keyDesc(at), keyDesc(jobId))
    .where(sql`${sql.raw(state.name)} IN (${sqlList(TERMINAL_STATES)})`),
  ...TERMINAL_STATES.map((s) =>
    index(`${table}_tenant_${s}_idx`)
      .on(tenantId, state, keyDesc(at), keyDesc(jobId))
      .where(sql.raw(`${state.name} = '${s}'`)),
  ),
];

/**
 * One row per ended attempt, written once when it ends (the open attempt is on the live row).
 * It also records the worker's own transitions of the attempt: its claim (`claim_version`,
 * `claimed_at`), its start (`started_at`, version + 1) and, when the worker applied it, the
 * closing transition (`end_*`). The `job_events` view reads them back as events.
 */
export const jobAttempts = pgTable(
  "job_attempts",
  {
    jobId: jobId(),
    attempt: integer("attempt").notNull(),
    tenantId: tenantId(),
    workerId: text("worker_id").notNull(),
    claimedAt: tz("claimed_at").notNull(),
    claimVersion: integer("claim_version").notNull(),
    startedAt: tz("started_at"),
    finishedAt: tz("finished_at").notNull(),
    outcome: runOutcome("outcome").notNull(),
    /** The attempt budget after the attempt ended. */
    maxAttempts: integer("max_attempts").notNull(),
    endEvent: jobEvent("end_event"),
    endFrom: jobState("end_from"),
    endTo: jobState("end_to"),
    endVersion: integer("end_version"),
    /** `fail`: when the retry became due. */
    retryAt: tz("retry_at"),
    errorClass: text("error_class"),
    errorMessage: text("error_message"),
    /** The handler's error stack (its frames, and the causes' below), capped like the message (lib/worker/errors.ts). */
    errorStack: text("error_stack"),
    result: jsonb("result"),
  },
  (t) => [
    primaryKey({ name: "job_attempts_pkey", columns: [t.jobId, t.attempt] }),
    check("job_attempts_attempt_positive", sql`${t.attempt} >= 1`),
    check(
      "job_attempts_end_whole",
      sql`(${t.endEvent} IS NULL) = (${t.endFrom} IS NULL) AND (${t.endEvent} IS NULL) = (${t.endTo} IS NULL) AND (${t.endEvent} IS NULL) = (${t.endVersion} IS NULL)`,
    ),
    check("job_attempts_versions", sql`${t.endVersion} IS NULL OR ${t.endVersion} > ${t.claimVersion}`),
    index("job_attempts_finished_brin").using("brin", t.finishedAt).with({ pages_per_range: 16 }),
    // The jobs a worker finished: the console's finished tabs.
    ...finishedIndexes("job_attempts", t.tenantId, t.endTo, t.finishedAt, t.jobId),
    // Attempts that did not succeed: a successful attempt writes no entry here.
    index("job_attempts_error_class_idx")
      .on(t.errorClass, t.jobId)
      .where(sql`error_class IS NOT NULL`),
    index("job_attempts_worker_trouble_idx")
      .on(t.workerId, keyDesc(t.finishedAt))
      .where(sql`outcome <> 'succeeded'`),
    index("job_attempts_lease_lost_idx")
      .on(keyDesc(t.finishedAt), t.jobId)
      .where(sql`outcome = 'lease_expired'`),
  ],
);

/**
 * Every transition a worker did not apply (submit is the catalog row; a worker's are its
 * attempts'), append-only. PARTITIONED BY RANGE (at), one partition per UTC day
 * (drizzle/0009_partition_events.sql, renamed in 0012), which drizzle-kit cannot express.
 */
export const jobLog = pgTable(
  "job_log",
  {
    jobId: jobId(),
    tenantId: tenantId(),
    event: jobEvent("event").notNull(),
    fromState: jobState("from_state"),
    toState: jobState("to_state").notNull(),
    ...actor(),
    attempt: integer("attempt").notNull(),
    stateVersion: integer("state_version").notNull(),
    at: tz("at").notNull().defaultNow(),
    payload: jsonb("payload"),
    /** The attempt budget after the transition. */
    maxAttempts: integer("max_attempts").notNull(),
  },
  (t) => [
    check("job_log_no_submit", sql`${t.event} <> 'submit' AND ${t.fromState} IS NOT NULL AND ${t.actorKind} <> 'worker'`),
    index("job_log_job_version_idx").on(t.jobId, t.stateVersion),
    index("job_log_at_brin").using("brin", t.at),
    // The jobs finished by a transition no worker applied (cancelled, given up).
    ...finishedIndexes("job_log", t.tenantId, t.toState, t.at, t.jobId),
  ],
);

/** Every refused transition and why. No foreign key: a refusal may name a job that does not exist. */
export const transitionRejections = pgTable(
  "transition_rejections",
  {
    id: serialId(),
    jobId: jobId(),
    tenantId: text("tenant_id"),
    event: jobEvent("event").notNull(),
    kind: rejectionKind("kind").notNull(),
    ...actor(),
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
    // The console's rejection list, by kind, event or actor, newest first.
    index("transition_rejections_kind_id_idx").on(t.kind, keyDesc(t.id)),
    index("transition_rejections_event_id_idx").on(t.event, keyDesc(t.id)),
    index("transition_rejections_actor_id_idx").on(t.actorId, keyDesc(t.id)),
  ],
);

export const workers = pgTable(
  "workers",
  {
    id: text("id").primaryKey(),
    host: text("host").notNull(),
    pid: integer("pid").notNull(),
    queues: text("queues").array().notNull(),
    concurrency: integer("concurrency").notNull(),
    startedAt: tz("started_at").notNull().defaultNow(),
    lastSeenAt: tz("last_seen_at").notNull().defaultNow(),
    stoppedAt: tz("stopped_at"),
    /** Attempts the worker finished and failed since it started (it writes them with its heartbeat). */
    succeeded: bigint("succeeded", { mode: "number" }).notNull().default(0),
    failed: bigint("failed", { mode: "number" }).notNull().default(0),
    /**
     * An operator asked this worker process to drain (the console's Workers page): it reads this with
     * its heartbeat and drains as on SIGTERM. Cleared when a worker (re)registers under the id.
     */
    drainRequestedAt: tz("drain_requested_at"),
    drainRequestedBy: text("drain_requested_by"),
  },
  (t) => [index("workers_last_seen_idx").on(keyDesc(t.lastSeenAt))],
);

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
  ...actor(),
  /** What was selected, in words: "12 selected jobs", "dead · media.render · OutOfMemoryError". */
  description: text("description").notNull(),
  total: integer("total").notNull(),
  status: bulkStatus("status").notNull().default("running"),
  createdAt: tz("created_at").notNull().defaultNow(),
  finishedAt: tz("finished_at"),
  /** The `jobscope.bulk` job that applies it (drizzle/0021_bulk_on_engine.sql). */
  jobId: uuid("job_id"),
  /** The audit row each item writes, minus the item's own fields (lib/jobs/bulk.ts, BulkAudit). */
  itemAudit: jsonb("item_audit"),
});

export const bulkOperationItems = pgTable(
  "bulk_operation_items",
  {
    operationId: uuid("operation_id")
      .notNull()
      .references(() => bulkOperations.id),
    jobId: jobId(),
    expectedState: jobState("expected_state").notNull(),
    expectedVersion: integer("expected_version").notNull(),
    /** null until processed; "applied" or a rejection kind. */
    outcome: text("outcome"),
    reason: text("reason"),
    /** A replay's edited params for this job, checked against its type at the confirm (null: as it last ran). */
    params: jsonb("params"),
  },
  (t) => [primaryKey({ columns: [t.operationId, t.jobId] })],
);

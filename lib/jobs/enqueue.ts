import { sql } from "drizzle-orm";
import { z } from "zod";
import { mayApply, submitted } from "../fsm/machine";
import type { Db } from "../db/client";
import { prepared, execute, pgError } from "../db/drizzle";
import { injectTraceContext, SpanKind, withSpan } from "../tracing/tracing";
import { uuidv7 } from "./ids";
import { findBadText, notBeforeProblem } from "../input";
import { isJobType, JOB_TYPES, maySubmit, queuesOf, typesFor, type Submitter } from "./job-types";
import { markCte } from "./write";
import { JOB_COLUMNS } from "./direct-write";
import type { Actor, JobRow } from "./types";
import { inputIssues, type InputIssue } from "../result";

export class EnqueueError extends Error {
  constructor(
    readonly code: "invalid_input" | "unknown_type" | "unknown_queue" | "invalid_params" | "unknown_tenant" | "forbidden",
    message: string,
    readonly issues: InputIssue[] = [],
  ) {
    super(message);
    this.name = "EnqueueError";
  }
}

export const EnqueueInput = z.strictObject({
  tenantId: z.string().min(1).max(100),
  type: z.string().min(1).max(200),
  params: z.unknown().default({}),
  queue: z
    .string()
    .regex(/^[a-z0-9_.-]{1,100}$/, "lowercase letters, digits, _ . - (at most 100)")
    .optional(),
  priority: z.int().min(0).max(9).default(0),
  maxAttempts: z.int().min(1).max(100).optional(),
  notBefore: z.coerce
    .date()
    .refine((d) => notBeforeProblem(d) === null, { error: (i) => notBeforeProblem(i.input as Date) ?? "out of range" })
    .optional(),
  idempotencyKey: z.string().min(1).max(200).optional(),
});
export type EnqueueInput = z.input<typeof EnqueueInput>;

/**
 * Submit a job: validate everything first (bad input writes nothing), then
 * write its catalog row and its live row as `queued` and wake the workers, in
 * one statement. With an idempotency key, a second submit returns the first
 * job (`created: false`) instead of a copy.
 */
/**
 * `submitter` says who is asking (lib/jobs/job-types.ts): a type it may not submit is unknown to it,
 * and a tenant (`tenant_api`) or a person (`console`) may only name a queue its type declares.
 * Jobscope's own code (`internal`, the default) may use any queue.
 */
export type EnqueueOptions = { at?: Date; submitter?: Submitter };

export async function enqueue(client: Db, raw: EnqueueInput, actor: Actor, opts: EnqueueOptions = {}): Promise<{ job: JobRow; created: boolean }> {
  // A producer span around the submit (lib/tracing): its context is stored with the job, and each
  // attempt's span continues it. Without an OpenTelemetry SDK this is a no-op and stores nothing.
  // The type as given, only if it is a string: the input is not validated yet (an object without a
  // prototype made String() throw before enqueue could refuse it).
  const type = (raw as { type?: unknown } | null)?.type;
  const attributes = { "jobscope.job.type": typeof type === "string" ? type.slice(0, 200) : "", "jobscope.actor": actor.kind };
  return withSpan(
    "jobscope.enqueue",
    attributes,
    async (span) => {
      const r = await submit(client, raw, actor, opts);
      span.setAttributes({
        "jobscope.job.id": r.job.id,
        "jobscope.job.queue": r.job.queue,
        "jobscope.tenant": r.job.tenantId,
        "jobscope.job.created": r.created,
      });
      return r;
    },
    { kind: SpanKind.PRODUCER },
  );
}

async function submit(client: Db, raw: EnqueueInput, actor: Actor, opts: EnqueueOptions): Promise<{ job: JobRow; created: boolean }> {
  if (!mayApply(null, "submit", actor.kind)) {
    throw new EnqueueError("forbidden", `a ${actor.kind} may not submit jobs`);
  }
  // Text PostgreSQL cannot store (a NUL, a lone surrogate), anywhere in the input, params included.
  const bad = findBadText(raw);
  if (bad) {
    const inParams = bad.path === "params" || bad.path.startsWith("params.");
    throw new EnqueueError(inParams ? "invalid_params" : "invalid_input", `invalid job: ${bad.path} ${bad.problem}`, [
      { path: bad.path, message: bad.problem },
    ]);
  }
  const parsed = EnqueueInput.safeParse(raw);
  if (!parsed.success) throw new EnqueueError("invalid_input", "invalid job", inputIssues(parsed.error));
  const input = parsed.data;
  const submitter = opts.submitter ?? "internal";
  if (!isJobType(input.type) || !maySubmit(input.type, submitter)) {
    // Only the types this submitter may submit are named: the others are none of its business.
    const known = typesFor(submitter).map(([t]) => t);
    throw new EnqueueError("unknown_type", `unknown job type ${JSON.stringify(input.type.slice(0, 200))}; known: ${known.join(", ")}`);
  }
  const spec = JOB_TYPES[input.type];
  if (input.queue !== undefined && submitter !== "internal" && !queuesOf(input.type).includes(input.queue)) {
    throw new EnqueueError(
      "unknown_queue",
      `${input.type} jobs cannot be put in queue ${JSON.stringify(input.queue)}; its queues: ${queuesOf(input.type).join(", ")}`,
      [{ path: "queue", message: `not a queue of ${input.type}` }],
    );
  }
  const params = spec.params.safeParse(input.params);
  if (!params.success) throw new EnqueueError("invalid_params", `invalid params for ${input.type}`, inputIssues(params.error));
  const initial = submitted(input.maxAttempts ?? spec.maxAttempts);

  // One autocommit statement (inside a caller's transaction, one statement of it): the catalog row
  // (nothing happens when its idempotency key was used), the live row, and the wake-up NOTIFY,
  // sent at commit. The submit event is the catalog row (the `job_events` view reads it back).
  // The tenant is checked by the catalog's foreign key.
  const id = uuidv7(opts.at?.getTime());
  let rows: (JobRow & { notified: number })[];
  try {
    rows = await submitStatement(client)({
      id,
      tenantId: input.tenantId,
      type: input.type,
      queue: input.queue ?? spec.queue,
      priority: input.priority,
      maxAttempts: initial.maxAttempts,
      params: JSON.stringify(params.data),
      idempotencyKey: input.idempotencyKey ?? null,
      actorKind: actor.kind,
      actorId: actor.id,
      at: opts.at ?? null,
      notBefore: input.notBefore ?? null,
      state: initial.state,
      attempt: initial.attempt,
      version: initial.stateVersion,
      traceContext: traceContextParam(),
    });
  } catch (e) {
    if (pgError(e)?.code === "23503" && pgError(e)?.constraint_name === "job_catalog_tenant_id_fkey") {
      throw new EnqueueError("unknown_tenant", `unknown tenant ${JSON.stringify(input.tenantId)}`);
    }
    throw e;
  }
  const [inserted] = rows;
  if (inserted) {
    const { notified: _n, ...job } = inserted;
    void _n;
    return { job, created: true };
  }
  const [existing] = await execute<JobRow>(
    client,
    sql`
    SELECT ${sql.raw(JOB_COLUMNS)} FROM jobs
     WHERE tenant_id = ${input.tenantId} AND idempotency_key = ${input.idempotencyKey ?? null}`,
  );
  if (!existing) throw new Error("idempotency conflict without an existing job");
  return { job: existing, created: false };
}

/** The active span's W3C trace context as JSON text for the catalog, or null (no SDK, nothing sampled). */
function traceContextParam(): string | null {
  const carrier = injectTraceContext();
  return carrier ? JSON.stringify(carrier) : null;
}

const submitStatement = (client: Db) =>
  prepared<JobRow & { notified: number }>(client, "jobscope_submit", () => {
    const ph = (name: string) => sql.placeholder(name);
    const at = sql`coalesce(${ph("at")}::timestamptz, now())`;
    return sql`WITH ${markCte},
      c AS (
        INSERT INTO job_catalog (id, tenant_id, type, queue, priority, max_attempts, params, idempotency_key, submitted_by_kind, submitted_by, created_at, not_before, trace_context)
        SELECT ${ph("id")}::uuid, ${ph("tenantId")}::text, ${ph("type")}::text, ${ph("queue")}::text, ${ph("priority")}::smallint,
               ${ph("maxAttempts")}::int, ${ph("params")}::text::jsonb, ${ph("idempotencyKey")}::text, ${ph("actorKind")}::text::actor_kind,
               ${ph("actorId")}::text, ${at}, coalesce(${ph("notBefore")}::timestamptz, ${at}), ${ph("traceContext")}::text::jsonb
          FROM mark WHERE mark.on = 'on'
        ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING *),
      -- A fair queue's tag: after this tenant's last queued job, no earlier than the queue's head.
      tag AS (
        SELECT CASE WHEN coalesce((SELECT fair FROM queues WHERE name = ${ph("queue")}::text), false) THEN greatest(
                 coalesce((SELECT fair_tag + 1 FROM jobs_live WHERE queue = ${ph("queue")}::text AND tenant_id = ${ph("tenantId")}::text
                            AND state = 'queued' AND fair_tag > 0 ORDER BY fair_tag DESC LIMIT 1), 1),
                 coalesce((SELECT fair_tag FROM jobs_live WHERE queue = ${ph("queue")}::text AND state = 'queued' AND fair_tag > 0
                            ORDER BY fair_tag LIMIT 1), 1))
               ELSE 0 END AS fair_tag),
      l AS (
        INSERT INTO jobs_live (id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version, not_before, params, created_at, updated_at, fair_tag)
        SELECT id, tenant_id, type, queue, priority, ${ph("state")}::text::job_state, ${ph("attempt")}::int, max_attempts,
               ${ph("version")}::int, not_before, params, created_at, created_at, (SELECT fair_tag FROM tag)
          FROM c
        RETURNING *)
      SELECT l.id, l.tenant_id, l.type, l.queue, l.priority, l.state, l.attempt, l.max_attempts, l.state_version, l.lease_owner, l.heartbeat_at,
             l.not_before, l.params, c.idempotency_key, l.created_at, l.updated_at, NULL::timestamptz AS finished_at,
             (SELECT count(pg_notify('jobscope_queued', queue))::int FROM l) AS notified
        FROM l JOIN c ON c.id = l.id`;
  });

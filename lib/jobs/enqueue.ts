import { z } from "zod";
import { submitted } from "../fsm/machine";
import { TRANSITIONS, type ActorKind } from "../fsm/table";
import type { Sql } from "../db/client";
import { isJobType, JOB_TYPES } from "./job-types";
import { clock, inWritePath, JOB_COLUMNS, type Tx } from "./write-path";
import type { Actor, JobRow } from "./types";

const SUBMIT = TRANSITIONS.find((t) => t.from === null)!;

export class EnqueueError extends Error {
  constructor(
    readonly code: "invalid_input" | "unknown_type" | "invalid_params" | "unknown_tenant" | "forbidden",
    message: string,
    readonly issues: { path: string; message: string }[] = [],
  ) {
    super(message);
    this.name = "EnqueueError";
  }
}

export const EnqueueInput = z.strictObject({
  tenantId: z.string().min(1).max(100),
  type: z.string().min(1).max(200),
  params: z.unknown().default({}),
  queue: z.string().regex(/^[a-z0-9_.-]{1,100}$/, "lowercase letters, digits, _ . - (at most 100)").optional(),
  priority: z.int().min(0).max(9).default(0),
  maxAttempts: z.int().min(1).max(100).optional(),
  notBefore: z.coerce.date().optional(),
  idempotencyKey: z.string().min(1).max(200).optional(),
});
export type EnqueueInput = z.input<typeof EnqueueInput>;

const issuesOf = (e: z.ZodError) => e.issues.map((i) => ({ path: i.path.join("."), message: i.message }));

/**
 * Submit a job: validate everything first (bad input writes nothing), then
 * insert it as `queued`, append its `submit` event and wake the workers, in
 * one transaction. With an idempotency key, a second submit returns the first
 * job (`created: false`) instead of a copy.
 */
export async function enqueue(
  sql: Sql | Tx,
  raw: EnqueueInput,
  actor: Actor,
  opts: { at?: Date } = {},
): Promise<{ job: JobRow; created: boolean }> {
  if (!(SUBMIT.actors as readonly ActorKind[]).includes(actor.kind)) {
    throw new EnqueueError("forbidden", `a ${actor.kind} may not submit jobs`);
  }
  const parsed = EnqueueInput.safeParse(raw);
  if (!parsed.success) throw new EnqueueError("invalid_input", "invalid job", issuesOf(parsed.error));
  const input = parsed.data;
  if (!isJobType(input.type)) {
    throw new EnqueueError("unknown_type", `unknown job type ${JSON.stringify(input.type)}; known: ${Object.keys(JOB_TYPES).join(", ")}`);
  }
  const spec = JOB_TYPES[input.type];
  const params = spec.params.safeParse(input.params);
  if (!params.success) throw new EnqueueError("invalid_params", `invalid params for ${input.type}`, issuesOf(params.error));
  const initial = submitted(input.maxAttempts ?? spec.maxAttempts);

  return inWritePath(sql, async (tx) => {
    const [tenant] = await tx`SELECT 1 AS one FROM tenants WHERE id = ${input.tenantId}`;
    if (!tenant) throw new EnqueueError("unknown_tenant", `unknown tenant ${JSON.stringify(input.tenantId)}`);
    const now = clock(tx, opts.at);
    const [job] = await tx<JobRow[]>`
      INSERT INTO jobs (tenant_id, type, queue, priority, state, attempt, max_attempts, state_version, not_before,
                        params, idempotency_key, created_at, updated_at)
      VALUES (${input.tenantId}, ${input.type}, ${input.queue ?? spec.queue}, ${input.priority}, ${initial.state},
              ${initial.attempt}, ${initial.maxAttempts}, ${initial.stateVersion},
              ${input.notBefore ? tx`${input.notBefore}::timestamptz` : now},
              ${tx.json(params.data as never)}, ${input.idempotencyKey ?? null}, ${now}, ${now})
      ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
      RETURNING ${tx.unsafe(JOB_COLUMNS)}`;
    if (!job) {
      const [existing] = await tx<JobRow[]>`
        SELECT ${tx.unsafe(JOB_COLUMNS)} FROM jobs
         WHERE tenant_id = ${input.tenantId} AND idempotency_key = ${input.idempotencyKey ?? null}`;
      if (!existing) throw new Error("idempotency conflict without an existing job");
      return { job: existing, created: false };
    }
    await tx`
      INSERT INTO job_events (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, payload)
      VALUES (${job.id}, ${job.tenantId}, ${SUBMIT.event}, NULL, ${SUBMIT.to}, ${actor.kind}, ${actor.id}, 0, 0, ${now},
              ${tx.json({ maxAttempts: job.maxAttempts })})`;
    await tx`SELECT pg_notify('jobscope_queued', ${job.queue})`;
    return { job, created: true };
  });
}

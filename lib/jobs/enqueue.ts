import { randomUUID } from "node:crypto";
import postgres from "postgres";
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

  // Two statements sent together (pipelined, one round trip): the job, then its submit event and the
  // wake-up NOTIFY (sent at commit). The second reads the job the first inserted — in a separate
  // statement, so row-level security sees it — and writes nothing if the first did not insert (an
  // idempotency key already used). The tenant is checked by the foreign key.
  return inWritePath(sql, async (tx) => {
    const now = clock(tx, opts.at);
    const id = randomUUID();
    const [insert, submit] = await Promise.allSettled([
      tx<JobRow[]>`
        INSERT INTO jobs (id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version, not_before,
                          params, idempotency_key, created_at, updated_at)
        VALUES (${id}, ${input.tenantId}, ${input.type}, ${input.queue ?? spec.queue}, ${input.priority}, ${initial.state},
                ${initial.attempt}, ${initial.maxAttempts}, ${initial.stateVersion},
                ${input.notBefore ? tx`${input.notBefore}::timestamptz` : now},
                ${tx.json(params.data as never)}, ${input.idempotencyKey ?? null}, ${now}, ${now})
        ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING ${tx.unsafe(JOB_COLUMNS)}`,
      tx`
        WITH job AS (SELECT id, tenant_id, queue, max_attempts, created_at FROM jobs WHERE id = ${id}),
        event AS (
          INSERT INTO job_events (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, payload)
          SELECT id, tenant_id, ${SUBMIT.event}, NULL, ${SUBMIT.to}, ${actor.kind}, ${actor.id}, 0, 0, created_at,
                 jsonb_build_object('maxAttempts', max_attempts)
            FROM job)
        SELECT count(pg_notify('jobscope_queued', queue))::int AS notified FROM job`,
    ]);
    if (insert.status === "rejected") {
      const e = insert.reason as unknown;
      if (e instanceof postgres.PostgresError && e.code === "23503" && e.constraint_name === "jobs_tenant_id_tenants_id_fk") {
        throw new EnqueueError("unknown_tenant", `unknown tenant ${JSON.stringify(input.tenantId)}`);
      }
      throw e;
    }
    if (submit.status === "rejected") throw submit.reason;
    const rows = insert.value;
    const [inserted] = rows;
    if (!inserted) {
      const [existing] = await tx<JobRow[]>`
        SELECT ${tx.unsafe(JOB_COLUMNS)} FROM jobs
         WHERE tenant_id = ${input.tenantId} AND idempotency_key = ${input.idempotencyKey ?? null}`;
      if (!existing) throw new Error("idempotency conflict without an existing job");
      return { job: existing, created: false };
    }
    return { job: inserted, created: true };
  });
}

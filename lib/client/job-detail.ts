import { z } from "zod";
import { ACTOR_KINDS, EVENTS, REJECTION_KINDS, RUN_OUTCOMES, STATES } from "@/lib/fsm/table";
import type { JobDetail } from "@/lib/jobs/queries";
import { inputIssues } from "@/lib/result";
import { HttpError } from "./get-json";

// The wire format is JobDetail as JSON: timestamps arrive as ISO strings and
// become Dates again here, so the page works on one type whether its data came
// from the server render or from a poll.
const date = z.coerce.date();
const state = z.enum(STATES);
const event = z.enum(EVENTS);
const actorKind = z.enum(ACTOR_KINDS);
// Event and rejection ids are bigint columns, which postgres.js sends as strings.
const bigintId = z.string();

const JobDetailSchema: z.ZodType<JobDetail> = z.object({
  job: z.object({
    id: z.string(),
    tenantId: z.string(),
    type: z.string(),
    queue: z.string(),
    priority: z.number(),
    state,
    attempt: z.number(),
    maxAttempts: z.number(),
    stateVersion: z.number(),
    leaseOwner: z.string().nullable(),
    heartbeatAt: date.nullable(),
    notBefore: date,
    params: z.unknown(),
    idempotencyKey: z.string().nullable(),
    createdAt: date,
    updatedAt: date,
    finishedAt: date.nullable(),
  }),
  runs: z.array(
    z.object({
      attempt: z.number(),
      workerId: z.string(),
      claimedAt: date,
      startedAt: date.nullable(),
      finishedAt: date.nullable(),
      outcome: z.enum(RUN_OUTCOMES).nullable(),
      errorClass: z.string().nullable(),
      errorMessage: z.string().nullable(),
      errorStack: z.string().nullable().optional(),
      result: z.unknown(),
    }),
  ),
  events: z.array(
    z.object({
      id: bigintId,
      event,
      fromState: state.nullable(),
      toState: state,
      actorKind,
      actorId: z.string(),
      attempt: z.number(),
      stateVersion: z.number(),
      at: date,
      payload: z.record(z.string(), z.unknown()).nullable(),
    }),
  ),
  eventCount: z.number(),
  rejections: z.array(
    z.object({
      id: bigintId,
      event: z.string(),
      kind: z.enum(REJECTION_KINDS),
      actorKind: z.string(),
      actorId: z.string(),
      expectedState: state.nullable(),
      expectedVersion: z.number().nullable(),
      currentState: state.nullable(),
      currentVersion: z.number().nullable(),
      reason: z.string(),
      at: date,
    }),
  ),
  progress: z.object({ attempt: z.number(), done: z.number(), total: z.number() }).nullable(),
});

/** GET /api/jobs/[id]'s body as the JobDetail the server rendered from, or an HttpError naming where it differs. */
export function parseJobDetail(body: unknown): JobDetail {
  const parsed = JobDetailSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const where = inputIssues(parsed.error)[0]?.path ?? "";
  throw new HttpError(`The server sent the job in an unexpected shape${where ? ` (at ${where})` : ""}.`, 200, "bad_shape");
}

import { z } from "zod";
import { STATES } from "../fsm/table";
import { EnqueueInput } from "../jobs/enqueue";
import { decodeCursor } from "../jobs/filters";
import { MAX_SCHEDULE_AHEAD_DAYS, notBeforeProblem, storableText, timeOutOfRange } from "../input";

/**
 * The tenant API's request and response shapes. Requests are strict: a field
 * the API does not define (`tenantId`, `state`, a typo) is refused, never ignored.
 * The OpenAPI document (lib/api/openapi.ts) is generated from these.
 */

/** An ISO 8601 time with its offset, within the years 1970 to 9999 (year 0000 is not a time PostgreSQL has). */
const isoTime = z.iso
  .datetime({ offset: true })
  .refine((s) => timeOutOfRange(new Date(s)) === null, { error: (i) => `${timeOutOfRange(new Date(String(i.input)))}` });

/** A filter's text: what PostgreSQL can store (lib/input.ts). */
const filterText = (max: number) => storableText().pipe(z.string().min(1).max(max));

/** `POST /api/v1/jobs`: enqueue's input without the tenant, which is the key's. */
export const SubmitJobBody = EnqueueInput.omit({ tenantId: true }).extend({
  notBefore: z.iso
    .datetime({ offset: true })
    .refine((s) => notBeforeProblem(new Date(s)) === null, { error: (i) => notBeforeProblem(new Date(String(i.input))) ?? "out of range" })
    .optional()
    .describe(`Not claimable before this time (ISO 8601, from 2000 to ${MAX_SCHEDULE_AHEAD_DAYS} days ahead); default now.`),
  params: z.record(z.string(), z.unknown()).default({}).describe("The job type's parameters (see the per-type schemas)."),
});
export type SubmitJobBody = z.input<typeof SubmitJobBody>;

const cursor = z
  .string()
  .max(200)
  .refine((s) => decodeCursor(s) !== null, "not a cursor this API gave out");

/** `GET /api/v1/jobs` query parameters. */
export const ListJobsQuery = z
  .strictObject({
    state: z.enum(STATES).optional(),
    type: filterText(200).optional(),
    queue: filterText(100).optional(),
    createdFrom: isoTime.optional().describe("Created at or after (inclusive)."),
    createdTo: isoTime.optional().describe("Created before (exclusive)."),
    after: cursor.optional().describe("The `next` cursor of a previous page: older jobs."),
    before: cursor.optional().describe("The `prev` cursor of a previous page: newer jobs."),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .refine((q) => !(q.after && q.before), { message: "give `after` or `before`, not both", path: ["before"] });
export type ListJobsQuery = z.output<typeof ListJobsQuery>;

/** `POST /api/v1/jobs/{id}/cancel`: optionally, the state and version the caller last saw. */
export const CancelJobBody = z
  .strictObject({
    expectedState: z.enum(STATES).optional(),
    expectedVersion: z.int().min(0).optional(),
  })
  .refine((b) => (b.expectedState === undefined) === (b.expectedVersion === undefined), {
    message: "give expectedState and expectedVersion together, or neither",
    path: ["expectedVersion"],
  });
export type CancelJobBody = z.output<typeof CancelJobBody>;

// ---------------------------------------------------------------------------
// Responses (documentation; the handlers build them with the functions in lib/api/jobs.ts).

const time = z.iso.datetime();
const state = z.enum(STATES);

export const ApiJob = z.object({
  id: z.uuid(),
  tenantId: z.string(),
  type: z.string(),
  queue: z.string(),
  priority: z.int(),
  state,
  attempt: z.int().describe("Attempts started so far."),
  maxAttempts: z.int(),
  stateVersion: z.int().describe("Grows by one with every transition: pass it back as expectedVersion."),
  notBefore: time,
  params: z.unknown(),
  idempotencyKey: z.string().nullable(),
  createdAt: time,
  updatedAt: time,
  finishedAt: time.nullable(),
});

export const ApiJobSummary = ApiJob.omit({ params: true, idempotencyKey: true, notBefore: true }).extend({
  lastErrorClass: z.string().nullable(),
});

export const ApiJobPage = z.object({
  jobs: z.array(ApiJobSummary),
  next: z.string().nullable().describe("Pass as `after` for the next (older) page; null at the end."),
  prev: z.string().nullable().describe("Pass as `before` for the previous (newer) page; null at the start."),
});

export const ApiRun = z.object({
  attempt: z.int(),
  workerId: z.string().describe("Empty: which of Jobscope's workers ran an attempt is not shown to tenants."),
  claimedAt: time,
  startedAt: time.nullable(),
  finishedAt: time.nullable(),
  outcome: z.string().nullable(),
  errorClass: z.string().nullable(),
  errorMessage: z.string().nullable(),
  result: z.unknown(),
});

export const ApiEvent = z.object({
  event: z.string(),
  fromState: state.nullable(),
  toState: state,
  actorKind: z.string(),
  actorId: z.string(),
  attempt: z.int(),
  stateVersion: z.int(),
  at: time,
  payload: z.record(z.string(), z.unknown()).nullable(),
});

export const ApiJobDetail = z.object({
  job: ApiJob,
  runs: z.array(ApiRun),
  events: z.array(ApiEvent).describe("The newest 500 events, oldest first."),
  eventCount: z.int(),
});

export const ApiCancelResult = z.object({
  from: state,
  job: ApiJob,
});

export const ERROR_CODES = [
  "unauthenticated",
  "invalid_input",
  "unknown_type",
  "unknown_queue",
  "invalid_params",
  "not_found",
  "conflict",
  "illegal",
  "rate_limited",
  "too_large",
  "internal",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const ApiErrorSchema = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
});

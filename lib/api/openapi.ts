import { z } from "zod";
import { typesFor } from "../jobs/job-types";
import { rateLimitFromEnv } from "./rate-limit";
import { maxKeysPerTenant } from "./keys";
import {
  ApiCancelResult,
  ApiErrorSchema,
  ApiJob,
  ApiJobDetail,
  ApiJobPage,
  CancelJobBody,
  ERROR_CODES,
  ListJobsQuery,
  SubmitJobBody,
} from "./schemas";

type Json = Record<string, unknown>;

/** A zod schema as a JSON Schema (2020-12, which OpenAPI 3.1 uses), without the `$schema` line. */
function schemaOf(s: z.ZodType, io: "input" | "output"): Json {
  const out = z.toJSONSchema(s, { io, unrepresentable: "any" }) as Json;
  delete out.$schema;
  return out;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json) => ({ "application/json": { schema } });

function errorResponse(description: string, codes: readonly string[]) {
  return { description: `${description} Codes: ${codes.map((c) => `\`${c}\``).join(", ")}.`, content: json(ref("Error")) };
}

const COMMON_ERRORS = {
  "401": errorResponse("No valid API key (missing, malformed, unknown or revoked).", ["unauthenticated"]),
  "429": {
    ...errorResponse("The key's rate limit is exhausted; `Retry-After` says when to try again.", ["rate_limited"]),
    headers: { "Retry-After": { schema: { type: "integer" }, description: "Seconds until a request will be accepted." } },
  },
  "500": errorResponse("The server failed; details are in its log, never in the response.", ["internal"]),
};

const TOO_LARGE = { "413": errorResponse("The body is larger than 64 kB; it was not read.", ["too_large"]) };

const jobId = { name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } };

/** The submit body for each job type: the same strict body, with that type's params schema. */
function submitVariants(): Json[] {
  return typesFor("tenant_api").map(([type, spec]) => ({
    title: type,
    description: spec.description,
    ...schemaOf(
      SubmitJobBody.extend({
        type: z.literal(type),
        params: spec.params,
        queue: z.literal(spec.queue).optional().describe("The type's queue (the default)."),
      }),
      "input",
    ),
  }));
}

/** The OpenAPI 3.1 document of /api/v1, generated from the zod schemas the handlers validate with. */
export function openApiDocument(): Json {
  const rate = rateLimitFromEnv();
  const query = schemaOf(ListJobsQuery, "input") as { properties: Record<string, Json> };
  const parameters = Object.entries(query.properties).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return { name, in: "query", required: false, schema: rest, ...(description ? { description } : {}) };
  });
  return {
    openapi: "3.1.0",
    info: {
      title: "Jobscope tenant API",
      version: "1.0.0",
      description: [
        "Submit, list, inspect and cancel your tenant's jobs. Authenticate every request with an API key",
        "(`Authorization: Bearer jsk_…`), created by an admin or a tenant owner on the console's API keys page.",
        "A key acts for its own tenant only: another tenant's job is answered exactly like a job that does not exist (404).",
        `Each tenant may make ${rate.perMinute} requests a minute, in bursts of up to ${rate.burst}, whichever of its keys it uses; it may hold ${maxKeysPerTenant()} live keys.`,
        'Errors are `{ "error": { "code", "message" } }` with a stable code; bodies are strict (unknown fields are refused).',
      ].join(" "),
    },
    servers: [{ url: "/" }],
    security: [{ apiKey: [] }],
    paths: {
      "/api/v1/jobs": {
        get: {
          operationId: "listJobs",
          summary: "List jobs, newest first",
          description: "Keyset pagination: follow `next` (older) or `prev` (newer). Unknown or repeated parameters are refused.",
          parameters,
          responses: {
            "200": { description: "One page of jobs.", content: json(ref("JobPage")) },
            "400": errorResponse("A parameter is malformed or unknown.", ["invalid_input"]),
            ...COMMON_ERRORS,
          },
        },
        post: {
          operationId: "submitJob",
          summary: "Submit a job",
          description:
            "The job belongs to the key's tenant. With an `idempotencyKey` already used by this tenant, nothing is created and the existing job is returned with 200 (whatever the rest of the body says).",
          requestBody: { required: true, content: json(ref("SubmitJob")) },
          responses: {
            "201": { description: "Created; queued.", headers: { Location: { schema: { type: "string" } } }, content: json(ref("Job")) },
            "200": { description: "The idempotency key was used before: the existing job.", content: json(ref("Job")) },
            "400": errorResponse(
              "The body is not valid JSON, has unknown fields (such as `tenantId` or `state`), text that cannot be stored (a NUL character or a lone surrogate), a `notBefore` outside 2000 to a year ahead, an unknown type, a queue its type does not declare, or invalid params.",
              ["invalid_input", "unknown_type", "unknown_queue", "invalid_params"],
            ),
            ...TOO_LARGE,
            ...COMMON_ERRORS,
          },
        },
      },
      "/api/v1/jobs/{id}": {
        get: {
          operationId: "getJob",
          summary: "A job with its runs and events",
          parameters: [jobId],
          responses: {
            "200": { description: "The job.", content: json(ref("JobDetail")) },
            "404": errorResponse("No such job in your tenant.", ["not_found"]),
            ...COMMON_ERRORS,
          },
        },
      },
      "/api/v1/jobs/{id}/cancel": {
        post: {
          operationId: "cancelJob",
          summary: "Cancel a job",
          description:
            "A queued, claimed, paused or waiting job is cancelled; a running one becomes `cancelling` until its worker stops. Give `expectedState` and `expectedVersion` to cancel only if the job has not moved since you read it. The body may be empty.",
          parameters: [jobId],
          requestBody: { required: false, content: json(ref("CancelJob")) },
          responses: {
            "200": { description: "Applied.", content: json(ref("CancelResult")) },
            "400": errorResponse("The body is malformed or has unknown fields.", ["invalid_input"]),
            ...TOO_LARGE,
            "404": errorResponse("No such job in your tenant.", ["not_found"]),
            "409": errorResponse(
              "Refused by the state machine: the job moved since you read it (`conflict`), or it cannot be cancelled in its state (`illegal`, e.g. it already finished). Nothing was changed; `error.current` is the job's state and version now.",
              ["conflict", "illegal"],
            ),
            ...COMMON_ERRORS,
          },
        },
      },
      "/api/v1/openapi.json": {
        get: {
          operationId: "openApi",
          summary: "This document",
          security: [],
          responses: { "200": { description: "OpenAPI 3.1.", content: json({ type: "object" }) } },
        },
      },
    },
    components: {
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "A tenant API key: `jsk_` followed by 43 base64url characters." },
      },
      schemas: {
        SubmitJob: { oneOf: submitVariants() },
        CancelJob: schemaOf(CancelJobBody, "input"),
        Job: schemaOf(ApiJob, "output"),
        JobPage: schemaOf(ApiJobPage, "output"),
        JobDetail: schemaOf(ApiJobDetail, "output"),
        CancelResult: schemaOf(ApiCancelResult, "output"),
        Error: { ...schemaOf(ApiErrorSchema, "output"), description: `Every error. Codes: ${ERROR_CODES.join(", ")}.` },
      },
    },
  };
}

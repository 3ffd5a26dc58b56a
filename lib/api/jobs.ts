import "server-only";
import type { AuditAction } from "../audit/actions";
import { anonymousAudit } from "../audit/anonymous";
import { recordAudit } from "../audit/audit";
import type { Db, Tx } from "../db/client";
import { withScope } from "../db/scope";
import { enqueue, EnqueueError } from "../jobs/enqueue";
import { findBadText, describeBadText } from "../input";
import { JobFilters } from "../jobs/filters";
import { getJobDetail, listJobs, type JobListRow } from "../jobs/queries";
import { redactForTenant } from "../jobs/redact";
import { transition } from "../jobs/transition";
import type { Actor, JobRow, Rejection } from "../jobs/types";
import { apiError, BODY_WORDS, ok, QUERY_WORDS, type ApiResult } from "./http";
import { describeInvalid, inputIssues } from "../result";
import { auditPrincipalOfKey, keyActorId, type ApiKeyPrincipal } from "./keys";
import { CancelJobBody, ListJobsQuery, SubmitJobBody } from "./schemas";
import { isUuid } from "../uuid";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/**
 * The tenant API's operations. Each runs in one transaction scoped to the
 * key's tenant (row-level security), and each query also names that tenant
 * (the application's half of isolation): the key's tenant is the only one a
 * request can read or change. Route handlers (app/api/v1) only add the key check.
 */

const scoped = <T>(db: Db, key: ApiKeyPrincipal, fn: (tx: Tx) => Promise<T>) => withScope(db, { tenantId: key.tenantId }, fn);

type Entry = { action: AuditAction; jobIds?: string[]; outcome: "applied" | "refused" | "invalid"; reason: string };

const audit = (tx: Tx, key: ApiKeyPrincipal, e: Entry) => recordAudit(tx, { ...auditPrincipalOfKey(key), via: "api", ...e });

/** A refusal that writes nothing else: its repeats by the same key are aggregated (lib/audit/anonymous.ts). */
const refused = (key: ApiKeyPrincipal, e: Entry) => anonymousAudit().record({ via: "api", ...e }, keyActorId(key), auditPrincipalOfKey(key));

/** What the API shows of a job in a list and on its own: no lease owner or heartbeat (the workers' business). */
const publicFields = (j: JobRow | JobListRow) => ({
  id: j.id,
  tenantId: j.tenantId,
  type: j.type,
  queue: j.queue,
  priority: j.priority,
  state: j.state,
  attempt: j.attempt,
  maxAttempts: j.maxAttempts,
  stateVersion: j.stateVersion,
  createdAt: j.createdAt,
  updatedAt: j.updatedAt,
  finishedAt: j.finishedAt,
});

/** The job as the API shows it. */
export const publicJob = (j: JobRow) => ({ ...publicFields(j), notBefore: j.notBefore, params: j.params, idempotencyKey: j.idempotencyKey });

const publicSummary = (j: JobListRow) => ({ ...publicFields(j), lastErrorClass: j.lastErrorClass });

const NOT_FOUND = () => apiError(404, "not_found", "No such job.");

/** POST /api/v1/jobs. 201 with a new job; 200 with the existing one when the idempotency key was used before. */
export async function submitJob(db: Db, key: ApiKeyPrincipal, raw: unknown): Promise<ApiResult> {
  const actor: Actor = { kind: "api", id: keyActorId(key) };
  return scoped(db, key, async (tx) => {
    const parsed = SubmitJobBody.safeParse(raw);
    if (!parsed.success) {
      const message = `Not submitted: ${describeInvalid(parsed.error, BODY_WORDS)}.`;
      await refused(key, { action: "job.submit", outcome: "invalid", reason: message });
      return apiError(400, "invalid_input", message, { issues: inputIssues(parsed.error) });
    }
    try {
      const { job, created } = await enqueue(tx, { ...parsed.data, tenantId: key.tenantId }, actor, { submitter: "tenant_api" });
      await audit(tx, key, {
        action: "job.submit",
        jobIds: [job.id],
        outcome: "applied",
        reason: created ? `submitted ${job.type} → queued` : `idempotency key replayed: the existing job (${job.state}) was returned`,
      });
      return ok(publicJob(job), created ? 201 : 200, { Location: `/api/v1/jobs/${job.id}` });
    } catch (err) {
      if (!(err instanceof EnqueueError)) throw err;
      const code = err.code === "unknown_type" || err.code === "unknown_queue" || err.code === "invalid_params" ? err.code : "invalid_input";
      const message = `Not submitted: ${err.message}.`;
      await refused(key, { action: "job.submit", outcome: "invalid", reason: message });
      return apiError(400, code, message, err.issues.length ? { issues: err.issues } : {});
    }
  });
}

/** GET /api/v1/jobs: newest first, keyset cursors, the key's tenant only. */
export async function listTenantJobs(db: Db, key: ApiKeyPrincipal, search: URLSearchParams): Promise<ApiResult> {
  const bad = findBadText(search);
  if (bad) return apiError(400, "invalid_input", `query parameter ${describeBadText(bad)}.`, { issues: [{ path: bad.path, message: bad.problem }] });
  const raw: Record<string, string> = {};
  for (const [k, v] of search) {
    if (k in raw) return apiError(400, "invalid_input", `query parameter ${k.slice(0, 50)}: give it once.`);
    raw[k] = v;
  }
  const parsed = ListJobsQuery.safeParse(raw);
  if (!parsed.success) return apiError(400, "invalid_input", describeInvalid(parsed.error, QUERY_WORDS), { issues: inputIssues(parsed.error) });
  const q = parsed.data;
  const filters = JobFilters.parse({ ...q, tenant: key.tenantId, sort: "created" });
  const page = await scoped(db, key, (tx) => listJobs(tx, filters));
  return ok({ jobs: page.jobs.map(publicSummary), next: page.next, prev: page.prev });
}

/** GET /api/v1/jobs/{id}: another tenant's job is "no such job", exactly like a missing one. */
export async function getTenantJob(db: Db, key: ApiKeyPrincipal, id: string): Promise<ApiResult> {
  if (!isUuid(id)) return NOT_FOUND();
  const found = await scoped(db, key, (tx) => getJobDetail(tx, id));
  if (!found || found.job.tenantId !== key.tenantId) return NOT_FOUND();
  // The tenant's console's copy (lib/jobs/redact.ts): no worker ids, lease owners, supervisor or staff names.
  const detail = redactForTenant(found);
  return ok({
    job: publicJob(detail.job),
    runs: detail.runs,
    events: detail.events.map((e) => ({
      event: e.event,
      fromState: e.fromState,
      toState: e.toState,
      actorKind: e.actorKind,
      actorId: e.actorId,
      attempt: e.attempt,
      stateVersion: e.stateVersion,
      at: e.at,
      payload: e.payload,
    })),
    eventCount: detail.eventCount,
  });
}

function refusal(r: Rejection, expected: CancelJobBody): ApiResult {
  const current = r.current ? { state: r.current.state, stateVersion: r.current.stateVersion } : undefined;
  const now = current ? `the job is now ${current.state} (version ${current.stateVersion})` : "";
  switch (r.kind) {
    case "not_found":
      return NOT_FOUND();
    case "illegal":
      return apiError(
        409,
        "illegal",
        `Not cancelled: a ${current?.state ?? "job in this state"} job cannot be cancelled; ${now}. Nothing was changed.`,
        { current },
      );
    default: {
      const saw = expected.expectedState ? `you expected ${expected.expectedState} at version ${expected.expectedVersion}, but ` : "";
      return apiError(409, "conflict", `Not cancelled: ${saw}${now}. Nothing was changed; read the job and decide again.`, { current });
    }
  }
}

/**
 * POST /api/v1/jobs/{id}/cancel, as the tenant. The transition and its audit
 * row commit together; a refusal is audited (and recorded by the write path) too.
 */
export async function cancelTenantJob(db: Db, key: ApiKeyPrincipal, id: string, raw: unknown): Promise<ApiResult> {
  const actor: Actor = { kind: "tenant", id: keyActorId(key) };
  const jobIds = isUuid(id) ? [id] : [];
  return scoped(db, key, async (tx) => {
    const parsed = CancelJobBody.safeParse(raw ?? {});
    if (!parsed.success) {
      const message = `Not cancelled: ${describeInvalid(parsed.error, BODY_WORDS)}.`;
      await refused(key, { action: "job.cancel", jobIds, outcome: "invalid", reason: message });
      return apiError(400, "invalid_input", message, { issues: inputIssues(parsed.error) });
    }
    const body = parsed.data;
    // The application's own tenant check, before the write path (which row-level security confines as well).
    const [mine] = jobIds.length ? await execute(tx, sql`SELECT 1 AS one FROM job_catalog WHERE id = ${id} AND tenant_id = ${key.tenantId}`) : [];
    if (!mine) {
      await refused(key, {
        action: "job.cancel",
        jobIds,
        outcome: "refused",
        reason: `not_found: no job ${id.slice(0, 80)} in tenant ${key.tenantId}`,
      });
      return NOT_FOUND();
    }
    const expected = body.expectedState !== undefined ? { state: body.expectedState, version: body.expectedVersion! } : undefined;
    const r = await transition(tx, { jobId: id, event: "cancel", actor, expected });
    await audit(tx, key, {
      action: "job.cancel",
      jobIds,
      outcome: r.ok ? "applied" : "refused",
      reason: r.ok ? `${r.from} → ${r.job.state}` : `${r.kind}: ${r.reason}`,
    });
    if (!r.ok) return refusal(r, body);
    return ok({ from: r.from, job: publicJob(r.job) });
  });
}

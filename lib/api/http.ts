import type { AuditAction } from "../audit/actions";
import { anonymousAudit, type AnonymousAuditor } from "../audit/anonymous";
import { recordAudit } from "../audit/audit";
import { pool } from "../db/client";
import { clientAddressOf } from "../http/client-address";
import { describeBadText, findBadText } from "../input";
import type { InputIssue, InvalidWords } from "../result";
import { auditPrincipalOfKey, verifyApiKey, type ApiKeyPrincipal } from "./keys";
import { apiRateLimiter, type RateLimiter } from "./rate-limit";
import type { ErrorCode } from "./schemas";

/** What an API operation answers, before it becomes a Response. */
export type ApiResult = { status: number; body: unknown; headers?: Record<string, string> };

/** Every JSON answer of the console and the API is per person and live: never cached. */
export const NO_STORE = { "Cache-Control": "no-store" };

export type ErrorExtra = { issues?: InputIssue[]; current?: unknown };

export function apiError(status: number, code: ErrorCode, message: string, extra: ErrorExtra = {}, headers?: Record<string, string>): ApiResult {
  return { status, body: { error: { code, message, ...extra } }, headers };
}

export const ok = (body: unknown, status = 200, headers?: Record<string, string>): ApiResult => ({ status, body, headers });

export function toResponse(r: ApiResult): Response {
  return Response.json(r.body, { status: r.status, headers: { ...NO_STORE, ...r.headers } });
}

/** The words for a body's first issue: "priority: Too big: expected number to be <=9". */
export const BODY_WORDS: InvalidWords = { whole: "body" };
/** The words for a URL's: "query parameter limit: Too small: …", `unknown query parameter "x"`. */
export const QUERY_WORDS: InvalidWords = { whole: "query", label: (p) => `query parameter ${p}`, key: "query parameter" };

/** Request bodies above this are refused (413) without being read further (the web server caps /api/v1 at the same size). */
export const MAX_BODY_BYTES = 64 * 1024;

const tooLarge = (): ApiResult => apiError(413, "too_large", `The body is larger than ${MAX_BODY_BYTES} bytes.`);

/**
 * A JSON body, or an error result. An empty body is `empty` (the cancel endpoint accepts none).
 * The body is read as a stream and given up as soon as it passes MAX_BODY_BYTES, whatever its
 * Content-Length said; text PostgreSQL cannot store (lib/input.ts) is refused naming its field.
 */
export async function readJson(
  request: Request,
  empty: unknown = undefined,
): Promise<{ ok: true; value: unknown } | { ok: false; error: ApiResult }> {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_BODY_BYTES) return { ok: false, error: tooLarge() };
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        await reader.cancel().catch(() => {});
        return { ok: false, error: tooLarge() };
      }
      chunks.push(value);
    }
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "" && empty !== undefined) return { ok: true, value: empty };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: apiError(400, "invalid_input", "The body is not valid JSON.") };
  }
  const bad = findBadText(value);
  if (bad)
    return {
      ok: false,
      error: apiError(400, "invalid_input", `${describeBadText(bad)}: such text cannot be stored.`, {
        issues: [{ path: bad.path, message: bad.problem }],
      }),
    };
  return { ok: true, value };
}

export type ApiContext = { key: ApiKeyPrincipal };

export type ApiDeps = { db?: ReturnType<typeof pool>; limiter?: RateLimiter; anonymous?: AnonymousAuditor };

/**
 * Every /api/v1 request except the OpenAPI document goes through here, inside
 * its route handler: the key is checked on every call (revocation takes
 * effect at once), then its tenant's rate limit (shared by all the tenant's keys), then `fn`. A state-changing
 * `action` refused for want of a valid key is audited. Whatever `fn` throws
 * is logged here and answered as `internal`, never passed on.
 */
export async function withApiKey(
  request: Request,
  action: AuditAction | null,
  fn: (ctx: ApiContext) => Promise<ApiResult>,
  deps: ApiDeps = {},
): Promise<Response> {
  const label = `${request.method} ${new URL(request.url).pathname.slice(0, 120)}`;
  let key: ApiKeyPrincipal | null = null;
  try {
    const sql = deps.db ?? pool();
    key = await verifyApiKey(sql, request.headers.get("authorization"));
    if (!key) {
      // Aggregated per client address: a flood of keyless requests is one row a minute, not one each.
      if (action)
        await (deps.anonymous ?? anonymousAudit()).record(
          { via: "api", action, outcome: "denied", reason: "no valid API key" },
          clientAddressOf(request.headers),
        );
      return toResponse(
        apiError(
          401,
          "unauthenticated",
          "Send a live API key: `Authorization: Bearer jsk_…`.",
          {},
          { "WWW-Authenticate": 'Bearer realm="jobscope"' },
        ),
      );
    }
    // The tenant's bucket, whichever of its keys asks: more keys do not mean more requests.
    const rate = (deps.limiter ?? apiRateLimiter()).take(`tenant:${key.tenantId}`);
    if (!rate.ok) {
      return toResponse(
        apiError(
          429,
          "rate_limited",
          `Too many requests for this tenant: retry in ${rate.retryAfterSeconds} s.`,
          {},
          { "Retry-After": String(rate.retryAfterSeconds) },
        ),
      );
    }
    const result = await fn({ key });
    return toResponse({ ...result, headers: { ...result.headers, "RateLimit-Remaining": String(rate.remaining) } });
  } catch (err) {
    // The cause goes to the server log only: a database error can name tables, hosts or credentials.
    console.error(`[jobscope] ${label} failed:`, err);
    // The action's transaction rolled back with its audit row: say in the log that it failed.
    if (action && key) {
      await recordAudit(deps.db ?? pool(), {
        ...auditPrincipalOfKey(key),
        via: "api",
        action,
        outcome: "error",
        reason: "internal error (see the server log)",
      }).catch(() => {});
    }
    return toResponse(apiError(500, "internal", "The server could not complete this request. Details are in the server log."));
  }
}

import type { z } from "zod";
import { ANONYMOUS, recordAudit } from "../audit/audit";
import { pool } from "../db/client";
import { auditPrincipalOfKey, verifyApiKey, type ApiKeyPrincipal } from "./keys";
import { apiRateLimiter, type RateLimiter } from "./rate-limit";
import type { ErrorCode } from "./schemas";

/** What an API operation answers, before it becomes a Response. */
export type ApiResult = { status: number; body: unknown; headers?: Record<string, string> };

/** Every JSON answer of the console and the API is per person and live: never cached. */
export const NO_STORE = { "Cache-Control": "no-store" };

export type ErrorExtra = { issues?: { path: string; message: string }[]; current?: unknown };

export function apiError(status: number, code: ErrorCode, message: string, extra: ErrorExtra = {}, headers?: Record<string, string>): ApiResult {
  return { status, body: { error: { code, message, ...extra } }, headers };
}

export const ok = (body: unknown, status = 200, headers?: Record<string, string>): ApiResult => ({ status, body, headers });

export function toResponse(r: ApiResult): Response {
  return Response.json(r.body, { status: r.status, headers: { ...NO_STORE, ...r.headers } });
}

export const issuesOf = (e: z.ZodError) => e.issues.map((i) => ({ path: i.path.join("."), message: i.message }));

/** The first issue in words: "priority: Too big: expected number to be <=9". */
export const describeIssues = (e: z.ZodError) => {
  const i = e.issues[0];
  return i ? `${i.path.join(".") || "body"}: ${i.message}` : "invalid input";
};

/** Request bodies above this are refused without being parsed. */
export const MAX_BODY_BYTES = 64 * 1024;

/** A JSON body, or an error result. An empty body is `empty` (the cancel endpoint accepts none). */
export async function readJson(request: Request, empty: unknown = undefined): Promise<{ ok: true; value: unknown } | { ok: false; error: ApiResult }> {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_BODY_BYTES) return { ok: false, error: apiError(400, "invalid_input", `The body is larger than ${MAX_BODY_BYTES} bytes.`) };
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) return { ok: false, error: apiError(400, "invalid_input", `The body is larger than ${MAX_BODY_BYTES} bytes.`) };
  if (text.trim() === "" && empty !== undefined) return { ok: true, value: empty };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, error: apiError(400, "invalid_input", "The body is not valid JSON.") };
  }
}

export type ApiContext = { key: ApiKeyPrincipal };

export type ApiDeps = { sql?: ReturnType<typeof pool>; limiter?: RateLimiter };

/**
 * Every /api/v1 request except the OpenAPI document goes through here, inside
 * its route handler: the key is checked on every call (revocation takes
 * effect at once), then the key's rate limit, then `fn`. A state-changing
 * `action` refused for want of a valid key is audited. Whatever `fn` throws
 * is logged here and answered as `internal`, never passed on.
 */
export async function withApiKey(
  request: Request,
  action: string | null,
  fn: (ctx: ApiContext) => Promise<ApiResult>,
  deps: ApiDeps = {},
): Promise<Response> {
  const label = `${request.method} ${new URL(request.url).pathname.slice(0, 120)}`;
  let key: ApiKeyPrincipal | null = null;
  try {
    const sql = deps.sql ?? pool();
    key = await verifyApiKey(sql, request.headers.get("authorization"));
    if (!key) {
      if (action) {
        await recordAudit(sql, { ...ANONYMOUS, via: "api", action, outcome: "denied", reason: "no valid API key" }).catch((err) =>
          console.error(`[jobscope] could not audit a denied ${action}:`, err),
        );
      }
      return toResponse(
        apiError(401, "unauthenticated", "Send a live API key: `Authorization: Bearer jsk_…`.", {}, { "WWW-Authenticate": 'Bearer realm="jobscope"' }),
      );
    }
    const rate = (deps.limiter ?? apiRateLimiter()).take(key.keyId);
    if (!rate.ok) {
      return toResponse(
        apiError(429, "rate_limited", `Too many requests for this key: retry in ${rate.retryAfterSeconds} s.`, {}, { "Retry-After": String(rate.retryAfterSeconds) }),
      );
    }
    const result = await fn({ key });
    return toResponse({ ...result, headers: { ...result.headers, "RateLimit-Remaining": String(rate.remaining) } });
  } catch (err) {
    // The cause goes to the server log only: a database error can name tables, hosts or credentials.
    console.error(`[jobscope] ${label} failed:`, err);
    // The action's transaction rolled back with its audit row: say in the log that it failed.
    if (action && key) {
      await recordAudit(deps.sql ?? pool(), { ...auditPrincipalOfKey(key), via: "api", action, outcome: "error", reason: "internal error (see the server log)" }).catch(
        () => {},
      );
    }
    return toResponse(apiError(500, "internal", "The server could not complete this request. Details are in the server log."));
  }
}

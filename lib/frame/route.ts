import "server-only";
import { NextResponse, type NextRequest } from "next/server";
import { NO_STORE } from "../api/http";
import type { Permission } from "../auth/permissions";
import type { ApiErrorBody } from "../client/wire";
import { authorize, denied, withViewer, withViewerRead, type Viewer } from "../auth/viewer";
import { describeBadText, findBadText } from "../input";
import { AppError, type ErrorBody } from "../result";
import type { Tx } from "../db/client";

export type RouteContext<P, I> = { tx: Tx; viewer: Viewer; input: I; params: P; request: NextRequest };

export type RouteSpec<P, I, T> = {
  /** Asked first, every time (lib/auth/permissions.ts). */
  permission: Permission;
  /**
   * `replica` (the default): a read that tolerates replica lag — lists, counts, charts
   * (`withViewerRead`). `primary`: a read that guards a write (a job's version) or follows one.
   */
  reads?: "replica" | "primary";
  /** The request's parameters, checked before any database work; throw an AppError to refuse (400). */
  input?: (request: NextRequest, params: P, viewer: Viewer) => I;
  /** What the person reads when the database failed ("Could not list jobs: …"); the cause goes to the server log. */
  failed: string;
  /** The JSON body, read in the viewer's scoped transaction; throw an AppError for a known refusal (404, 400). */
  read: (ctx: RouteContext<P, I>) => Promise<T>;
};

/**
 * THE frame of every console GET route handler: authorise → check the parameters (text PostgreSQL
 * cannot store is refused for every route) → read in the
 * viewer's scope (row-level security confines a tenant member) → JSON, never cached. A refusal is
 * `{ error: { code, message } }` with the AppError's status; an unknown failure is logged and
 * answered 500 with `failed`. GETs change nothing, so nothing is audited.
 *
 *   export const GET = consoleRoute({ permission: "jobs:read", failed: "Could not …", read: ({ tx }) => … });
 *
 * lib/auth/coverage.test.ts fails for a route handler (outside /api/v1, which has its API-key frame,
 * lib/api/http.ts `withApiKey`) not built here.
 */
export function consoleRoute<P = Record<string, never>, I = undefined, T = unknown>(
  spec: RouteSpec<P, I, T>,
): (request: NextRequest, context: { params: Promise<P> }) => Promise<Response> {
  return async (request, context) => {
    // Who is asking is read from the database too: when it does not answer, the poll is told so
    // (503, the route's own words) rather than the framework's bare 500 page.
    let auth;
    try {
      auth = await authorize(spec.permission);
    } catch (err) {
      console.error(`GET ${request.nextUrl.pathname.slice(0, 120)}: could not read the session:`, err);
      return errorResponse(503, { code: "internal", message: spec.failed });
    }
    if (!auth.ok) return denied(auth);
    const viewer = auth.viewer;
    try {
      const params = await context.params;
      // A query or path parameter PostgreSQL cannot store is the caller's mistake, named (lib/input.ts).
      const bad = findBadText(request.nextUrl.searchParams) ?? findBadText(params);
      if (bad) throw new AppError("invalid_input", `parameter ${describeBadText(bad)}.`);
      // Without `input`, I is `undefined` (its default): the cast states what the spec's type already says.
      const input = spec.input ? spec.input(request, params, viewer) : (undefined as I);
      const scoped = spec.reads === "primary" ? withViewer : withViewerRead;
      const body = await scoped(viewer, (tx) => spec.read({ tx, viewer, input, params, request }));
      return NextResponse.json(body, { headers: NO_STORE });
    } catch (err) {
      if (err instanceof AppError) return errorResponse(err.status, err.body);
      // The cause goes to the server log only: a database error can name tables, hosts or credentials.
      console.error(`GET ${request.nextUrl.pathname.slice(0, 120)} failed:`, err);
      return errorResponse(500, { code: "internal", message: spec.failed });
    }
  };
}

function errorResponse(status: number, error: ErrorBody): Response {
  return NextResponse.json({ error } satisfies ApiErrorBody, { status, headers: NO_STORE });
}

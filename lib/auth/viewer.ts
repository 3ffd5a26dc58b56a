import { notFound, redirect } from "next/navigation";
import { pool } from "../db/client";
import { withScope, type ScopedSql } from "../db/scope";
import type { Actor } from "../jobs/types";
import { actorKindOf, can, tenantScopeOf, type Permission, type Principal } from "./permissions";

/** The signed-in person, as every server-side check sees them. */
export type Viewer = Principal & { userId: string; email: string; name: string };

/**
 * The signed-in user of this request, or null.
 * PROVISIONAL (issue 4 in progress): replaced by the better-auth session lookup.
 */
export async function getViewer(): Promise<Viewer | null> {
  return { userId: "dev", email: "dev-operator@jobscope.local", name: "Dev operator", role: "admin", tenantId: null };
}

/** For pages: signed out → the sign-in page; signed in without the permission → 404. */
export async function requirePage(permission: Permission): Promise<Viewer> {
  const viewer = await getViewer();
  if (!viewer) redirect("/sign-in");
  if (!can(viewer, permission)) notFound();
  return viewer;
}

export type Authorized = { ok: true; viewer: Viewer } | { ok: false; status: 401 | 403; code: "unauthenticated" | "forbidden"; message: string };

/** For route handlers and server actions: the check runs inside the handler, every time. */
export async function authorize(permission: Permission): Promise<Authorized> {
  const viewer = await getViewer();
  if (!viewer) return { ok: false, status: 401, code: "unauthenticated", message: "Sign in to do this." };
  if (!can(viewer, permission)) return { ok: false, status: 403, code: "forbidden", message: "Your role may not do this." };
  return { ok: true, viewer };
}

/** The JSON response for a refused route-handler request. */
export function denied(a: Extract<Authorized, { ok: false }>): Response {
  return Response.json({ error: { code: a.code, message: a.message } }, { status: a.status });
}

/** Who the state machine records for this person's actions; null for read-only roles. */
export function actorOf(viewer: Viewer): Actor | null {
  const kind = actorKindOf(viewer.role);
  return kind ? { kind, id: viewer.email } : null;
}

/**
 * Run `fn` in one transaction scoped to what the viewer may see: row-level
 * security confines a tenant member to their tenant even if a query forgot to.
 */
export async function withViewer<T>(viewer: Principal, fn: (tx: ScopedSql) => Promise<T>): Promise<T> {
  const tenant = tenantScopeOf(viewer);
  return withScope(pool(), tenant ? { tenantId: tenant } : { all: true }, fn);
}

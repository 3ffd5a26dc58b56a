import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import { pool, type Tx } from "../db/client";
import { readPoolAfter, rememberWrite, wrote } from "../db/read-your-writes";
import { withScope } from "../db/scope";
import type { Actor } from "../jobs/types";
import { auth } from "./auth";
import { actorKindOf, can, ROLES, tenantScopeOf, type Permission, type Principal, type Role } from "./permissions";

/** The signed-in person, as every server-side check sees them. */
export type Viewer = Principal & { userId: string; email: string; name: string; tenantOwner: boolean };

/** The signed-in user of this request (from the better-auth session cookie), or null. */
export const getViewer = cache(async (): Promise<Viewer | null> => {
  // headers() first: it marks the render as per-request before any database is touched.
  const requestHeaders = await headers();
  const session = await auth().api.getSession({ headers: requestHeaders });
  if (!session) return null;
  const u = session.user as typeof session.user & { role?: string; tenantId?: string | null; tenantOwner?: boolean; deactivatedAt?: Date | null };
  // Deactivation deletes the sessions; this also covers a session created in the same instant.
  if (u.deactivatedAt) return null;
  const role = (ROLES as readonly string[]).includes(u.role ?? "") ? (u.role as Role) : null;
  if (!role) return null;
  return { userId: u.id, email: u.email, name: u.name, role, tenantId: u.tenantId ?? null, tenantOwner: !!u.tenantOwner };
});

/** For pages: signed out → the sign-in page; signed in without the permission → 404. */
export async function requirePage(permission: Permission, from?: string): Promise<Viewer> {
  const viewer = await getViewer();
  if (!viewer) redirect(from ? `/sign-in?next=${encodeURIComponent(from)}` : "/sign-in");
  if (!can(viewer, permission)) notFound();
  return viewer;
}

export type Denied = {
  ok: false;
  status: 401 | 403;
  code: "unauthenticated" | "forbidden";
  message: string;
  /** Who was refused (null when signed out): the audit log names them. */
  viewer: Viewer | null;
};
export type Authorized = { ok: true; viewer: Viewer } | Denied;

/** For route handlers and server actions: the check runs inside the handler, every time. */
export async function authorize(permission: Permission): Promise<Authorized> {
  const viewer = await getViewer();
  if (!viewer) return { ok: false, status: 401, code: "unauthenticated", message: "Sign in to do this.", viewer: null };
  if (!can(viewer, permission)) return { ok: false, status: 403, code: "forbidden", message: "Your role may not do this.", viewer };
  return { ok: true, viewer };
}

/** The JSON response for a refused route-handler request. */
export function denied(a: Denied): Response {
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
export async function withViewer<T>(viewer: Principal, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const tenant = tenantScopeOf(viewer);
  let changed = false;
  const out = await withScope(pool(), tenant ? { tenantId: tenant } : { all: true }, async (tx) => {
    const r = await fn(tx);
    changed = await wrote(tx);
    return r;
  });
  // The next page this person sees reads the standby only once it has this change (read-your-writes).
  if (changed) await rememberWrite();
  return out;
}

/**
 * `withViewer` for reads that tolerate replica lag — lists, counts, charts — on the
 * read replica when DATABASE_READ_URL is set (the primary otherwise), except right after this
 * person's own change, until the replica has it (lib/db/read-your-writes.ts). Never for a write,
 * nor for a read that guards one (a job page's state and version feed its actions).
 */
export async function withViewerRead<T>(viewer: Principal, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const tenant = tenantScopeOf(viewer);
  return withScope(await readPoolAfter(), tenant ? { tenantId: tenant } : { all: true }, fn);
}

/** A filter's tenant, confined to the viewer's own for tenant members (the application-level half of isolation). */
export function confineTenant<T extends { tenant?: string | undefined }>(viewer: Principal, filters: T): T {
  const tenant = tenantScopeOf(viewer);
  return tenant ? { ...filters, tenant } : filters;
}

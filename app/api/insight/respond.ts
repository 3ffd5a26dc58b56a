import { NextResponse } from "next/server";
import type { ApiErrorBody } from "@/lib/client/wire";
import { authorize, denied, type Viewer, withViewerRead } from "@/lib/auth/viewer";
import type { Permission } from "@/lib/auth/permissions";
import type { ScopedSql } from "@/lib/db/scope";
import { NO_STORE } from "@/lib/api/http";

export function failure(status: number, code: string, message: string) {
  const body: ApiErrorBody = { error: { code, message } };
  return NextResponse.json(body, { status, headers: NO_STORE });
}

/**
 * The shape of every insight GET: the permission is checked inside the
 * handler, the reads run in one transaction scoped to the viewer, and a
 * database error goes to the server log only.
 */
export async function insightGet<T>(
  what: string,
  permission: Permission,
  read: (tx: ScopedSql, viewer: Viewer) => Promise<T | Response>,
): Promise<Response> {
  const auth = await authorize(permission);
  if (!auth.ok) return denied(auth);
  try {
    const body = await withViewerRead(auth.viewer, (tx) => read(tx, auth.viewer));
    if (body instanceof Response) return body;
    return NextResponse.json(body, { headers: NO_STORE });
  } catch (err) {
    console.error(`GET ${what} failed:`, err);
    return failure(500, "internal", `Could not load ${what}: the database did not answer. Details are in the server log.`);
  }
}

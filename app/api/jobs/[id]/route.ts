import { NextResponse } from "next/server";
import type { ApiErrorBody } from "@/lib/client/wire";
import { authorize, denied, withViewer } from "@/lib/auth/viewer";
import { tenantScopeOf } from "@/lib/auth/permissions";
import { getJobDetail } from "@/lib/jobs/queries";
import { redactForTenant } from "@/lib/jobs/redact";
import { NO_STORE } from "@/lib/api/http";

// Polled live by the job page: never prerendered, never cached.
export const dynamic = "force-dynamic";

function failure(status: number, code: string, message: string) {
  const body: ApiErrorBody = { error: { code, message } };
  return NextResponse.json(body, { status, headers: NO_STORE });
}

/** One job with its runs, events and rejections: the same JobDetail the page renders first, as JSON. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const auth = await authorize("jobs:read");
  if (!auth.ok) return denied(auth);
  try {
    // getJobDetail answers null for a malformed id, and for another tenant's job: all are "no such job".
    const detail = await withViewer(auth.viewer, (tx) => getJobDetail(tx, id));
    if (!detail) return failure(404, "not_found", "No such job: it may have been removed, or the link is wrong.");
    // A tenant member reads no worker ids, lease owners or staff e-mail addresses (lib/jobs/redact.ts).
    return NextResponse.json(tenantScopeOf(auth.viewer) ? redactForTenant(detail) : detail, { headers: NO_STORE });
  } catch (err) {
    // The cause goes to the server log only: a database error can name tables, hosts or credentials.
    console.error(`GET /api/jobs/${id.slice(0, 80)} failed:`, err);
    return failure(500, "internal", "Could not load the job: the database did not answer. Details are in the server log.");
  }
}

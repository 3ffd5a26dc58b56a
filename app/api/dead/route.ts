import { NextResponse, type NextRequest } from "next/server";
import { toGroupDto, toJobDto } from "@/app/dead/groups";
import type { DeadGroupsResponse, DeadJobsResponse } from "@/lib/client/wire";
import { parseDeadScope, resolveScope, type DeadScopeParams } from "@/app/dead/scope";
import type { ApiErrorBody } from "@/lib/client/wire";
import { authorize, denied, withViewer } from "@/lib/auth/viewer";
import type { Db } from "@/lib/db/client";
import { DEAD_GROUP_SCAN_CAP, listDeadGroups, listDeadJobs } from "@/lib/jobs/dead";
import { NO_STORE } from "@/lib/api/http";

// Polled live by the dead jobs page: never prerendered, never cached.
export const dynamic = "force-dynamic";

/**
 * GET /api/dead: the dead-job groups (`?tenant=&window=`).
 * GET /api/dead?type=…&errorClass=…&cursor=…: one page of a group's jobs;
 * no `errorClass` means the "(no error)" group.
 */
export async function GET(req: NextRequest) {
  const auth = await authorize("insight:read");
  if (!auth.ok) return denied(auth);
  const params = req.nextUrl.searchParams;
  // PostgreSQL text cannot hold NUL: refuse it here rather than fail in the query.
  if ([...params.values()].some((v) => v.includes("\u0000"))) return fail(400, "invalid_input", "Parameters may not contain NUL bytes.");
  const scope = parseDeadScope(params);
  const type = params.get("type")?.trim();
  if (type !== undefined && (type.length < 1 || type.length > 200)) {
    return fail(400, "invalid_input", "type must be 1 to 200 characters.");
  }
  try {
    return await withViewer(auth.viewer, (sql) => respond(sql, scope, type, params));
  } catch (err) {
    // The cause goes to the server log only: a database error can name tables, hosts or credentials.
    console.error("GET /api/dead failed:", err);
    return fail(500, "internal", "Could not read the dead jobs: the database did not answer. Details are in the server log.");
  }
}

async function respond(sql: Db, scope: DeadScopeParams, type: string | undefined, params: URLSearchParams) {
  const at = new Date().toISOString();
  if (type === undefined) {
    const { groups, capped } = await listDeadGroups(sql, resolveScope(scope));
    const body: DeadGroupsResponse = { groups: groups.map(toGroupDto), capped, scanCap: DEAD_GROUP_SCAN_CAP, at };
    return NextResponse.json(body, { headers: NO_STORE });
  }
  const page = await listDeadJobs(sql, {
    ...resolveScope(scope),
    type,
    errorClass: params.get("errorClass")?.slice(0, 200) || null,
    cursor: params.get("cursor"),
    limit: 50,
  });
  const body: DeadJobsResponse = { jobs: page.jobs.map(toJobDto), next: page.next, at };
  return NextResponse.json(body, { headers: NO_STORE });
}

function fail(status: number, code: string, message: string) {
  const body: ApiErrorBody = { error: { code, message } };
  return NextResponse.json(body, { status, headers: NO_STORE });
}

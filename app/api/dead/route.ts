import { toGroupDto, toJobDto } from "@/app/dead/groups";
import type { DeadGroupsResponse, DeadJobsResponse } from "@/lib/client/wire";
import { parseDeadScope, resolveScope } from "@/app/dead/scope";
import { consoleRoute } from "@/lib/frame/route";
import { DEAD_GROUP_SCAN_CAP, listDeadGroups, listDeadJobs } from "@/lib/jobs/dead";
import { AppError } from "@/lib/result";

// Polled live by the dead jobs page: never prerendered, never cached.
export const dynamic = "force-dynamic";

/**
 * GET /api/dead: the dead-job groups (`?tenant=&window=`).
 * GET /api/dead?type=…&errorClass=…&cursor=…: one page of a group's jobs;
 * no `errorClass` means the "(no error)" group.
 */
export const GET = consoleRoute({
  permission: "insight:read",
  reads: "primary",
  input: (request) => {
    const params = request.nextUrl.searchParams;
    // PostgreSQL text cannot hold NUL: refuse it here rather than fail in the query.
    if ([...params.values()].some((v) => v.includes("\u0000"))) throw new AppError("invalid_input", "Parameters may not contain NUL bytes.");
    const type = params.get("type")?.trim();
    if (type !== undefined && (type.length < 1 || type.length > 200)) throw new AppError("invalid_input", "type must be 1 to 200 characters.");
    return { scope: parseDeadScope(params), type, errorClass: params.get("errorClass")?.slice(0, 200) || null, cursor: params.get("cursor") };
  },
  failed: "Could not read the dead jobs: the database did not answer. Details are in the server log.",
  read: async ({ tx, input }): Promise<DeadGroupsResponse | DeadJobsResponse> => {
    const at = new Date().toISOString();
    const { scope, type, errorClass, cursor } = input;
    if (type === undefined) {
      const { groups, capped } = await listDeadGroups(tx, resolveScope(scope));
      return { groups: groups.map(toGroupDto), capped, scanCap: DEAD_GROUP_SCAN_CAP, at };
    }
    const page = await listDeadJobs(tx, { ...resolveScope(scope), type, errorClass, cursor, limit: 50 });
    return { jobs: page.jobs.map(toJobDto), next: page.next, at };
  },
});

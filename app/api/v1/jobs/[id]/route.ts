import { pool } from "@/lib/db/client";
import { withApiKey } from "@/lib/api/http";
import { getTenantJob } from "@/lib/api/jobs";

export const dynamic = "force-dynamic";

/** One of the key's tenant's jobs with its runs and events; any other id is 404. */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return withApiKey(request, null, ({ key }) => getTenantJob(pool(), key, id));
}

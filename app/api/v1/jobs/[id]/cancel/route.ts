import { pool } from "@/lib/db/client";
import { readJson, withApiKey } from "@/lib/api/http";
import { cancelTenantJob } from "@/lib/api/jobs";

export const dynamic = "force-dynamic";

/** Cancel one of the key's tenant's jobs, optionally guarded by the state and version the caller saw. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return withApiKey(request, "job.cancel", async ({ key }) => {
    const body = await readJson(request, {});
    if (!body.ok) return body.error;
    return cancelTenantJob(pool(), key, id, body.value);
  });
}

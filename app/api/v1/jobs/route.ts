import { pool } from "@/lib/db/client";
import { readJson, withApiKey } from "@/lib/api/http";
import { listTenantJobs, submitJob } from "@/lib/api/jobs";

// Every request is authenticated here, by its API key: never prerendered, never cached.
export const dynamic = "force-dynamic";

/** List the key's tenant's jobs (filters, keyset cursors). */
export async function GET(request: Request) {
  return withApiKey(request, null, ({ key }) => listTenantJobs(pool(), key, new URL(request.url).searchParams));
}

/** Submit a job for the key's tenant. */
export async function POST(request: Request) {
  return withApiKey(request, "job.submit", async ({ key }) => {
    const body = await readJson(request);
    return body.ok ? submitJob(pool(), key, body.value) : body.error;
  });
}

import { listWorkers } from "@/lib/insight/queries";
import { insightGet } from "../respond";

export const dynamic = "force-dynamic";

export async function GET() {
  return insightGet("the workers", "insight:read", async (tx) => ({ workers: await listWorkers(tx), at: new Date().toISOString() }));
}

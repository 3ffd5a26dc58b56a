import { driftStatus } from "@/lib/insight/queries";
import { insightGet } from "../respond";

export const dynamic = "force-dynamic";

/** Polled by the drift alarm on every page: one index range on (kind, at), usually empty. */
export async function GET() {
  return insightGet("the drift status", "insight:read", (tx) => driftStatus(tx));
}

import { NextResponse } from "next/server";
import type { ApiErrorBody, CountsResponse } from "@/lib/client/wire";
import { authorize, denied, withViewerRead } from "@/lib/auth/viewer";
import { countByState } from "@/lib/jobs/queries";
import { STATES, type JobState } from "@/lib/fsm/table";
import { NO_STORE } from "@/lib/api/http";

// Polled live by the overview: never prerendered at build time, never cached.
export const dynamic = "force-dynamic";

export async function GET() {
  const auth = await authorize("jobs:read");
  if (!auth.ok) return denied(auth);
  const { viewer } = auth;
  try {
    const byState = await withViewerRead(viewer, (tx) => countByState(tx, viewer.role === "tenant" ? { tenant: viewer.tenantId ?? "" } : {}));
    const counts = Object.fromEntries(STATES.map((s) => [s, byState[s].n])) as Record<JobState, number>;
    const capped = STATES.filter((s) => byState[s].capped);
    const total = STATES.reduce((sum, state) => sum + counts[state], 0);
    const body: CountsResponse = { counts, capped, total, at: new Date().toISOString() };
    return NextResponse.json(body, { headers: NO_STORE });
  } catch (err) {
    // The cause goes to the server log only: a database error can name tables, hosts or credentials.
    console.error("GET /api/counts failed:", err);
    const body: ApiErrorBody = {
      error: { code: "internal", message: "Could not count jobs: the database did not answer. Details are in the server log." },
    };
    return NextResponse.json(body, { status: 500, headers: NO_STORE });
  }
}

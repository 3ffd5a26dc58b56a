import { NextResponse, type NextRequest } from "next/server";
import type { ApiErrorBody, BulkProgressWire } from "@/lib/client/wire";
import { authorize, denied, withViewer } from "@/lib/auth/viewer";
import { getBulkProgress } from "@/lib/jobs/bulk";
import { NO_STORE } from "@/lib/api/http";

export const dynamic = "force-dynamic";

const failure = (status: number, code: string, message: string) =>
  NextResponse.json({ error: { code, message } } satisfies ApiErrorBody, { status, headers: NO_STORE });

/** How far a bulk action has got: polled by the progress panel until it is done. */
export async function GET(_request: NextRequest, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const auth = await authorize("jobs:operate");
  if (!auth.ok) return denied(auth);
  try {
    const progress = await withViewer(auth.viewer, (tx) => getBulkProgress(tx, id));
    if (!progress) return failure(404, "not_found", "There is no such bulk action.");
    const body: BulkProgressWire = {
      ...progress,
      createdAt: progress.createdAt.toISOString(),
      finishedAt: progress.finishedAt?.toISOString() ?? null,
    };
    return NextResponse.json(body, { headers: NO_STORE });
  } catch (err) {
    console.error(`GET /api/bulk/${id} failed:`, err);
    return failure(500, "internal", "Could not read the bulk action's progress. Details are in the server log.");
  }
}

import { NextResponse } from "next/server";
import { authorize, denied, withViewer } from "@/lib/auth/viewer";
import { recentAudits } from "@/lib/integrity/audit";
import { NO_STORE } from "@/lib/api/http";

export const dynamic = "force-dynamic";

/** The most recent integrity audits with their mismatches (job ids and what disagreed). */
export async function GET() {
  const auth = await authorize("audit:read");
  if (!auth.ok) return denied(auth);
  try {
    const audits = await withViewer(auth.viewer, (tx) => recentAudits(tx, 20));
    return NextResponse.json({ audits }, { headers: NO_STORE });
  } catch (err) {
    console.error("GET /api/integrity failed:", err);
    return NextResponse.json(
      { error: { code: "internal", message: "Could not list the audits: the database did not answer. Details are in the server log." } },
      { status: 500, headers: NO_STORE },
    );
  }
}

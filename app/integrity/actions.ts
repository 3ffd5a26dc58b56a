"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { authorize, withViewer } from "@/lib/auth/viewer";
import { runIncrementalAudit } from "@/lib/integrity/audit";

const Input = z.strictObject({ window: z.enum(["incremental", "24h", "all"]) });

export type AuditActionResult =
  | { ok: true; id: number; jobsChecked: number; eventsReplayed: number; mismatches: { jobId: string; problem: string }[]; durationMs: number; windowFrom: string; windowTo: string }
  | { ok: false; error: { code: "invalid_input" | "forbidden" | "internal"; message: string } };

/**
 * Run an integrity audit now and store it. A server action is a public POST
 * endpoint: the permission is checked here, every time, and the audit reads
 * inside the viewer's scoped transaction.
 */
export async function runIntegrityAuditAction(raw: unknown): Promise<AuditActionResult> {
  const auth = await authorize("audit:read");
  if (!auth.ok) return { ok: false, error: { code: "forbidden", message: auth.message } };
  const parsed = Input.safeParse(raw);
  if (!parsed.success) return { ok: false, error: { code: "invalid_input", message: "Choose a window: since the last audit, the last 24 hours, or everything." } };
  const { window } = parsed.data;
  try {
    const from = window === "all" ? new Date(0) : window === "24h" ? new Date(Date.now() - 86_400_000) : undefined;
    const r = await withViewer(auth.viewer, (tx) => runIncrementalAudit(tx, { actor: auth.viewer.email, from, lagMs: 0 }));
    revalidatePath("/integrity");
    return {
      ok: true,
      id: r.id,
      jobsChecked: r.jobsChecked,
      eventsReplayed: r.eventsReplayed,
      mismatches: r.mismatches.slice(0, 50),
      durationMs: r.durationMs,
      windowFrom: r.windowFrom.toISOString(),
      windowTo: r.windowTo.toISOString(),
    };
  } catch (err) {
    console.error("runIntegrityAuditAction failed:", err);
    return { ok: false, error: { code: "internal", message: "The audit could not run: the database did not answer. Details are in the server log." } };
  }
}

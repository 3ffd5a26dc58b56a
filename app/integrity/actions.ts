"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { consoleAction } from "@/lib/frame/action";
import { runIncrementalCheck } from "@/lib/integrity/check";

const Input = z.strictObject({ window: z.enum(["incremental", "24h", "all"]) });

/** An integrity check's answer: what it checked and the first 50 mismatches. */
export type CheckRun = {
  id: number;
  jobsChecked: number;
  eventsRebuilt: number;
  mismatches: { jobId: string; problem: string }[];
  durationMs: number;
  windowFrom: string;
  windowTo: string;
};

/**
 * Run an integrity check now and store it (integrity_audits, not the audit log: the run is the
 * record). It reads inside the viewer's scoped transaction.
 */
export const runIntegrityCheckAction = consoleAction({
  permission: "audit:read",
  audit: null,
  span: "integrity.run",
  input: Input,
  invalid: () => "Choose a window: since the last check, the last 24 hours, or everything.",
  failed: "The check could not run: the database did not answer. Details are in the server log.",
  read: async ({ tx, input: { window }, viewer }) => {
    const from = window === "all" ? new Date(0) : window === "24h" ? new Date(Date.now() - 86_400_000) : undefined;
    const r = await runIncrementalCheck(tx, { actor: viewer.email, from, lagMs: 0 });
    revalidatePath("/integrity");
    const data: CheckRun = {
      id: r.id,
      jobsChecked: r.jobsChecked,
      eventsRebuilt: r.eventsRebuilt,
      mismatches: r.mismatches.slice(0, 50),
      durationMs: r.durationMs,
      windowFrom: r.windowFrom.toISOString(),
      windowTo: r.windowTo.toISOString(),
    };
    return { ok: true, data };
  },
});

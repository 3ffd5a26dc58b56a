"use server";

import { z } from "zod";
import { recordAudit } from "@/lib/audit/audit";
import { principalOf } from "@/lib/audit/console";
import { withViewer } from "@/lib/auth/viewer";
import { consoleAction, type Done } from "@/lib/frame/action";
import { BULK_CAP, resolveSelection, type BulkSelection } from "@/lib/jobs/bulk";
import { parseJobFilters } from "@/lib/jobs/filters";
import { DELETE_BATCH, deleteFinishedBatch, previewDelete } from "@/lib/retention/delete";
import { AppError } from "@/lib/result";
import { describeFilter } from "./_components/describe";

/**
 * Delete finished jobs, with their history, under retention's rules (lib/retention/delete.ts):
 * a selection of the jobs list or everything matching a filter (its "Clean up" is a filter of jobs
 * finished before a date). A dry run first says how many would go, with how many runs and events,
 * and which stay and why; the confirm deletes exactly the finished jobs the dry run found (one
 * that came back to life since is left alone), in batches, each audited with its jobs.
 */

const Selection = z.union([
  z.strictObject({ ids: z.array(z.uuid()).min(1).max(BULK_CAP) }),
  // The list's query string, as in the URL: parsed exactly as the page parses it.
  z.strictObject({ search: z.string().max(4_000) }),
]);

export type DeletePreviewData = {
  description: string;
  /** The finished jobs that would go: what the confirm sends back. */
  ids: string[];
  runs: number;
  events: number;
  willSkip: { reason: string; count: number }[];
  /** More jobs matched than one deletion takes (BULK_CAP). */
  capped: boolean;
};

const OPERATORS = { permission: "jobs:operate", forbidden: "Only an operator may delete jobs." } as const;

function describe(s: z.output<typeof Selection>): string {
  return "search" in s
    ? describeFilter(parseJobFilters(new URLSearchParams(s.search)))
    : `${s.ids.length} selected ${s.ids.length === 1 ? "job" : "jobs"}`;
}

/** The dry run: which finished jobs the selection would delete, with how much history, and which stay. */
export const previewDeleteAction = consoleAction({
  ...OPERATORS,
  audit: "jobs.delete_preview",
  input: z.strictObject({ selection: Selection }),
  invalid: () => "The selection was not understood; reload the page and try again.",
  failed: "Could not prepare the dry run. Details are in the server log.",
  read: async ({ tx, input: { selection } }): Promise<Done<DeletePreviewData>> => {
    const target: BulkSelection = "search" in selection ? { filter: parseJobFilters(new URLSearchParams(selection.search)) } : { ids: selection.ids };
    const resolved = await resolveSelection(tx, target);
    const p = await previewDelete(tx, "ids" in target ? target.ids : resolved.jobs.map((j) => j.id));
    return { ok: true, data: { description: describe(selection), ...p, capped: resolved.capped } };
  },
});

/** Confirmed: delete the finished jobs the dry run found, in batches; each batch and its audit entry commit together. */
export const deleteFinishedJobsAction = consoleAction({
  ...OPERATORS,
  audit: "jobs.delete",
  input: z.strictObject({ ids: z.array(z.uuid()).min(1).max(BULK_CAP), description: z.string().trim().min(1).max(300) }),
  invalid: () => "The confirmed selection was not understood; run the dry run again.",
  failed: "The deletion stopped: the database did not answer. What was deleted before is in the audit log; run the dry run again for the rest.",
  call: async ({ input: { ids, description }, viewer }): Promise<Done<{ deleted: number; runs: number; events: number; kept: number }>> => {
    const unique = [...new Set(ids)];
    const total = { deleted: 0, runs: 0, events: 0 };
    for (let i = 0; i < unique.length; i += DELETE_BATCH) {
      const batch = unique.slice(i, i + DELETE_BATCH);
      const r = await withViewer(viewer, async (tx) => {
        const done = await deleteFinishedBatch(tx, batch);
        if (done.deleted.length) {
          await recordAudit(tx, {
            ...principalOf(viewer),
            via: "console",
            action: "jobs.delete",
            jobIds: done.deleted,
            outcome: "applied",
            reason: `${description}: deleted ${done.deleted.length} finished ${done.deleted.length === 1 ? "job" : "jobs"} with their ${done.runs} runs and every event (of ${batch.length} confirmed in this batch)`,
          });
        }
        return done;
      });
      total.deleted += r.deleted.length;
      total.runs += r.runs;
      total.events += r.events;
    }
    if (total.deleted === 0)
      throw new AppError(
        "empty",
        "Nothing was deleted: none of these jobs is finished and free any more (one that was replayed or is held by another action stays).",
      );
    const kept = unique.length - total.deleted;
    return {
      ok: true,
      message: `Deleted ${total.deleted} finished ${total.deleted === 1 ? "job" : "jobs"} with their ${total.runs} runs and every event${kept ? `; ${kept} stayed (no longer finished, or held by another action)` : ""}.`,
      data: { ...total, kept },
    };
  },
});

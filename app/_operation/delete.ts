import "server-only";
import { recordAudit } from "@/lib/audit/audit";
import { principalOf } from "@/lib/audit/console";
import { withViewer, type Viewer } from "@/lib/auth/viewer";
import type { OperationResult } from "@/lib/client/wire";
import type { Tx } from "@/lib/db/client";
import { resolveSelection, toTuple, type BulkSelection } from "@/lib/jobs/bulk";
import { DELETE_BATCH, deleteFinishedBatch, previewDelete } from "@/lib/retention/delete";
import { AppError } from "@/lib/result";
import type { OperationPreview } from "./types";

/**
 * Deleting finished jobs with their history, under retention's rules (lib/retention/delete.ts): the
 * one operation that is not a transition. Its dry run says how many would go, with how many runs
 * and events, and which stay and why; its confirm deletes exactly the finished jobs the dry run
 * found (one that came back to life since stays), in batches, each audited with its jobs.
 */
export async function previewDeletion(
  tx: Tx,
  target: BulkSelection,
  head: Pick<OperationPreview, "description" | "capped">,
): Promise<OperationPreview> {
  const resolved = await resolveSelection(tx, target);
  const p = await previewDelete(tx, "ids" in target ? target.ids : resolved.jobs.map((j) => j.id));
  const seen = new Map(resolved.jobs.map((j) => [j.id, j]));
  const jobs = p.ids.flatMap((id) => {
    const j = seen.get(id);
    return j ? [toTuple({ id, state: j.state, version: j.stateVersion })] : [];
  });
  const skipped = p.willSkip.reduce((n, s) => n + s.count, 0);
  return {
    operation: "delete",
    ...head,
    capped: head.capped || resolved.capped,
    total: jobs.length + skipped,
    willApply: jobs.length,
    willSkip: p.willSkip,
    jobs,
    isDirect: true,
    risks: null,
    edit: null,
    history: { runs: p.runs, events: p.events },
  };
}

/** Delete the finished jobs of `ids`, in batches: each batch and its audit entry commit together. */
export async function deleteNow(viewer: Viewer, ids: string[], description: string): Promise<OperationResult> {
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
    operationId: null,
    event: "delete",
    description,
    status: "done",
    total: unique.length,
    done: unique.length,
    applied: total.deleted,
    refused: kept ? [{ kind: "kept", count: kept, sampleReason: "" }] : [],
    jobs: [],
    message: `Deleted ${total.deleted} finished ${total.deleted === 1 ? "job" : "jobs"} with their ${total.runs} runs and every event${kept ? `; ${kept} stayed (no longer finished, or held by another action)` : ""}.`,
  };
}

import type { Viewer } from "../auth/viewer";
import type { BulkEvent, OnItem } from "../jobs/bulk";
import { recordAudit } from "./audit";
import { principalOf } from "./console";

/** Audit each item of a bulk action in the transaction that moved (or refused to move) it. */
export function auditBulkItems(viewer: Viewer, event: BulkEvent, description: string): OnItem {
  return (tx, jobId, r) =>
    recordAudit(tx, {
      ...principalOf(viewer),
      via: "console",
      action: `bulk.${event}`,
      jobIds: [jobId],
      outcome: r.outcome === "applied" ? "applied" : r.outcome === "error" ? "error" : "refused",
      reason: r.outcome === "applied" ? description : `${r.outcome}: ${r.reason ?? ""} (${description})`,
    });
}

import type { Viewer } from "../auth/viewer";
import type { BulkAudit, BulkEvent } from "../jobs/bulk";
import { principalOf } from "./console";

/**
 * The audit row each item of a bulk action appends, in the transaction that moved (or refused to
 * move) it. Data, not a callback: the operation runs on a worker (lib/jobs/bulk.ts).
 */
export function auditBulkItems(viewer: Viewer, event: BulkEvent, description: string): BulkAudit {
  return { ...principalOf(viewer), action: `bulk.${event}`, description: description.slice(0, 500) };
}

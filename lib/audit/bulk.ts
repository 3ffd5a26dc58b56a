import "server-only";
import type { Viewer } from "../auth/viewer";
import type { BulkAudit, BulkEvent } from "../jobs/bulk";
import { principalOf } from "./console";

/**
 * Who confirmed a bulk action and what, for its one audit entry (written with the operation,
 * lib/jobs/bulk.ts startBulk). Data, not a callback: it is stored with the operation too.
 */
export function auditBulkItems(viewer: Viewer, event: BulkEvent, description: string): BulkAudit {
  return { ...principalOf(viewer), action: `bulk.${event}`, description: description.slice(0, 500) };
}

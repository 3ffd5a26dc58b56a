"use server";

import { z } from "zod";
import type { AuditAction } from "@/lib/audit/actions";
import { auditBulkItems } from "@/lib/audit/bulk";
import { auditDenied, auditRefusedRequest } from "@/lib/audit/console";
import { actorOf, authorize, withViewer } from "@/lib/auth/viewer";
import { pool } from "@/lib/db/client";
import { STATES } from "@/lib/fsm/table";
import { BULK_CAP, BULK_EVENTS, previewBulk, startBulk, type BulkEvent, type BulkSelection } from "@/lib/jobs/bulk";
import { parseJobFilters } from "@/lib/jobs/filters";
import { describeFilter } from "./_components/describe";
import type { ActionResult } from "./_components/wire";

const Event = z.enum(BULK_EVENTS);
const Uuid = z.uuid();

const PreviewInput = z.strictObject({
  event: Event,
  selection: z.union([
    z.strictObject({ ids: z.array(Uuid).min(1).max(BULK_CAP) }),
    // The list's query string, as in the URL: parsed exactly as the page parses it.
    z.strictObject({ search: z.string().max(4_000) }),
  ]),
});

/** A frozen job on the wire, compact because a selection may hold 10,000 of them: [id, state, version]. */
const FrozenTuple = z.tuple([Uuid, z.enum(STATES), z.int().min(0)]);
export type FrozenTuple = z.infer<typeof FrozenTuple>;

const StartInput = z.strictObject({
  event: Event,
  description: z.string().trim().min(1).max(300),
  frozen: z.array(FrozenTuple).min(1).max(BULK_CAP),
});

export type BulkPreviewData = {
  event: BulkEvent;
  description: string;
  total: number;
  willApply: number;
  willSkip: { reason: string; count: number }[];
  capped: boolean;
  frozen: FrozenTuple[];
};

const invalid = (message: string) => ({ ok: false, error: { code: "invalid_input", message } }) as const;
const forbidden = { ok: false, error: { code: "forbidden", message: "Only an operator may run bulk actions." } } as const;

/** The signed-in operator, checked inside every action (a server action is a public POST endpoint). */
async function bulkOperator(action: AuditAction) {
  const auth = await authorize("jobs:operate");
  const actor = auth.ok ? actorOf(auth.viewer) : null;
  if (!auth.ok || !actor) {
    if (!auth.ok) await auditDenied(auth, action);
    return null;
  }
  return { viewer: auth.viewer, actor };
}

/** The dry run: what `event` would do to the selection now, without changing anything. */
export async function previewBulkAction(input: unknown): Promise<ActionResult<BulkPreviewData>> {
  const who = await bulkOperator("bulk.preview");
  if (!who) return forbidden;
  const { viewer, actor } = who;
  const parsed = PreviewInput.safeParse(input);
  if (!parsed.success) return invalid("The selection or the action was not understood; reload the page and try again.");
  const { event, selection } = parsed.data;
  const filters = "search" in selection ? parseJobFilters(new URLSearchParams(selection.search)) : null;
  const target: BulkSelection = filters ? { filter: filters } : { ids: "ids" in selection ? selection.ids : [] };
  try {
    const p = await withViewer(viewer, (tx) => previewBulk(tx, { selection: target, event, actor }));
    const jobs = `${p.total} ${p.total === 1 ? "job" : "jobs"}`;
    const description = filters
      ? `${describeFilter(filters)} (${p.capped ? `the newest ${jobs}` : jobs})`
      : `${jobs} selected by id`;
    return {
      ok: true,
      data: {
        event,
        description,
        total: p.total,
        willApply: p.willApply,
        willSkip: p.willSkip,
        capped: p.capped,
        frozen: p.frozen.map((j) => [j.id, j.state, j.version]),
      },
    };
  } catch (err) {
    console.error("previewBulkAction failed:", err);
    return { ok: false, error: { code: "internal", message: "Could not prepare the dry run. Details are in the server log." } };
  }
}

/** Confirm a dry run: record the frozen selection and submit the job that moves it (a worker runs it). */
export async function startBulkAction(input: unknown): Promise<ActionResult<{ operationId: string }>> {
  const who = await bulkOperator("bulk.start");
  if (!who) return forbidden;
  const { viewer, actor } = who;
  const parsed = StartInput.safeParse(input);
  if (!parsed.success) {
    const message = "The confirmed selection was not understood; run the dry run again.";
    await auditRefusedRequest(viewer, "bulk.start", "invalid", message);
    return invalid(message);
  }
  const { event, description, frozen } = parsed.data;
  try {
    // The frozen list comes back from the browser: each item is still a guarded transition from the
    // state and version named here, applied as this operator, audited in its own transaction.
    const { operationId } = await startBulk(pool(), {
      frozen: frozen.map(([id, state, version]) => ({ id, state, version })),
      event,
      actor,
      description,
      audit: auditBulkItems(viewer, event, description),
    });
    return { ok: true, data: { operationId } };
  } catch (err) {
    console.error("startBulkAction failed:", err);
    return { ok: false, error: { code: "internal", message: "Could not start the bulk action. Details are in the server log." } };
  }
}

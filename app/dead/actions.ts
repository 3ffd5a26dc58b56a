"use server";

import { z } from "zod";
import type { AuditAction } from "@/lib/audit/actions";
import { auditBulkItems } from "@/lib/audit/bulk";
import { auditDenied } from "@/lib/audit/console";
import { actorOf, authorize, withViewer } from "@/lib/auth/viewer";
import { pool } from "@/lib/db/client";
import { eventsFor } from "@/lib/fsm/machine";
import { BULK_CAP, previewBulk, startBulk, type FrozenJob } from "@/lib/jobs/bulk";
import { listDeadGroupIds } from "@/lib/jobs/dead";
import { JobFilters } from "@/lib/jobs/filters";
import { resolveScope, WINDOW_KEYS } from "./scope";
import type { ActionResult, ReplayPreview } from "./replay-types";

/** Checked jobs travel to the server twice (dry run, confirm); a group replay has no such limit. */
const MAX_SELECTED = 1_000;
const text = (max: number) => z.string().trim().min(1).max(max);

const Scope = z.strictObject({ tenant: text(100).optional(), window: z.enum(WINDOW_KEYS) });

/** Replay is asked for on one job, on checked jobs, on a whole group, or on every dead job in the page's scope. */
const ReplaySelection = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("ids"), ids: z.array(z.uuid()).min(1).max(MAX_SELECTED) }),
  z.strictObject({
    kind: z.literal("group"),
    // Not trimmed: a group is named by its exact type and error class.
    type: z.string().min(1).max(200),
    errorClass: z.string().min(1).max(200).nullable(),
    scope: Scope,
  }),
  z.strictObject({ kind: z.literal("all"), scope: Scope }),
]);
type ReplaySelection = z.output<typeof ReplaySelection>;

const Frozen = z.strictObject({ id: z.uuid(), state: z.literal("dead"), version: z.int().min(0) });
const StartInput = z.strictObject({ selection: ReplaySelection, frozen: z.array(Frozen).min(1).max(BULK_CAP) });

const refuse = (code: string, message: string) => ({ ok: false as const, error: { code, message } });

/** Who is calling, and may they replay? Asked inside every action: the browser is never trusted. */
async function replayer(action: AuditAction) {
  const auth = await authorize("jobs:operate");
  if (!auth.ok) {
    await auditDenied(auth, action);
    return null;
  }
  const actor = actorOf(auth.viewer);
  return actor && eventsFor("dead", actor.kind).includes("replay") ? { viewer: auth.viewer, actor } : null;
}

function describe(s: ReplaySelection): string {
  if (s.kind !== "ids") {
    const where = [s.scope.tenant && `tenant ${s.scope.tenant}`, s.scope.window !== "all" && `last ${s.scope.window}`].filter(Boolean);
    const what = s.kind === "group" ? `dead · ${s.type} · ${s.errorClass ?? "(no error)"}` : "dead · every type and error";
    return [what, ...where].join(" · ");
  }
  return s.ids.length === 1 ? `dead job ${s.ids[0]}` : `${s.ids.length} selected dead jobs`;
}

/** The dry run: resolve the selection now, and say how many would be replayed and why others would not. */
export async function previewReplayAction(input: unknown): Promise<ActionResult<ReplayPreview>> {
  const who = await replayer("replay.preview");
  if (!who) return refuse("forbidden", "Only an operator may replay dead jobs.");
  const { viewer, actor } = who;
  const parsed = ReplaySelection.safeParse(input);
  if (!parsed.success) {
    const tooMany = parsed.error.issues.some((i) => i.code === "too_big" && i.path[0] === "ids");
    return tooMany
      ? refuse("too_many", `Select at most ${MAX_SELECTED.toLocaleString("en-US")} jobs at once, or replay their whole group.`)
      : refuse("invalid_input", "That selection is not valid: reload the page and try again.");
  }
  const s = parsed.data;
  try {
    return await withViewer(viewer, async (sql) => {
    if (s.kind === "all") {
      // Every dead job in scope: exactly the jobs list's "dead" tab under the same tenant and time range.
      const { tenant, since } = resolveScope(s.scope);
      const filter = JobFilters.parse({ state: "dead", tenant, finishedFrom: since });
      const p = await previewBulk(sql, { selection: { filter }, event: "replay", actor });
      return { ok: true, data: { ...p, description: describe(s) } };
    }
    let ids: string[];
    let groupCapped = false;
    if (s.kind === "group") {
      // Not the jobs list's errorClass filter (a class on ANY run): the group is the class of the LAST run.
      const group = await listDeadGroupIds(sql, { ...resolveScope(s.scope), type: s.type, errorClass: s.errorClass, cap: BULK_CAP });
      ids = group.ids;
      groupCapped = group.capped;
    } else {
      ids = s.ids;
    }
    if (ids.length === 0) return refuse("empty", "This group has no dead jobs any more.");
    const p = await previewBulk(sql, { selection: { ids }, event: "replay", actor });
    return { ok: true, data: { ...p, capped: p.capped || groupCapped, description: describe(s) } };
    });
  } catch (err) {
    console.error("previewReplayAction failed:", err);
    return refuse("internal", "Could not prepare the replay: the database did not answer. Details are in the server log.");
  }
}

/** Confirmed: replay exactly the jobs the dry run froze, each only if it is still as the dry run saw it. */
export async function startReplayAction(input: unknown): Promise<ActionResult<{ operationId: string }>> {
  const who = await replayer("replay.start");
  if (!who) return refuse("forbidden", "Only an operator may replay dead jobs.");
  const { viewer, actor } = who;
  const parsed = StartInput.safeParse(input);
  if (!parsed.success) return refuse("invalid_input", "That replay is not valid: run the dry run again.");
  try {
    // The frozen list comes back from the browser; each item is still a guarded transition,
    // applied as this server-side actor and only from the state and version named here.
    const frozen: FrozenJob[] = parsed.data.frozen;
    const description = describe(parsed.data.selection);
    const audit = auditBulkItems(viewer, "replay", description);
    const { operationId } = await startBulk(pool(), { frozen, event: "replay", actor, description, audit });
    return { ok: true, data: { operationId } };
  } catch (err) {
    console.error("startReplayAction failed:", err);
    return refuse("internal", "Could not start the replay: the database did not answer. Details are in the server log.");
  }
}

"use server";

import { z } from "zod";
import { actorOf, type Viewer } from "@/lib/auth/viewer";
import { consoleAction } from "@/lib/edge/action";
import { confirmBulk } from "@/lib/edge/bulk-confirm";
import { eventsFor } from "@/lib/fsm/machine";
import { BULK_CAP, previewBulk } from "@/lib/jobs/bulk";
import { listDeadGroupIds } from "@/lib/jobs/dead";
import { JobFilters } from "@/lib/jobs/filters";
import { AppError } from "@/lib/result";
import { resolveScope, WINDOW_KEYS } from "./scope";

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

function describe(s: ReplaySelection): string {
  if (s.kind !== "ids") {
    const where = [s.scope.tenant && `tenant ${s.scope.tenant}`, s.scope.window !== "all" && `last ${s.scope.window}`].filter(Boolean);
    const what = s.kind === "group" ? `dead · ${s.type} · ${s.errorClass ?? "(no error)"}` : "dead · every type and error";
    return [what, ...where].join(" · ");
  }
  return s.ids.length === 1 ? `dead job ${s.ids[0]}` : `${s.ids.length} selected dead jobs`;
}

const ONLY_OPERATORS = "Only an operator may replay dead jobs.";

/** Who may replay: the permission, and an actor the state machine lets replay a dead job. */
const REPLAYER = {
  permission: "jobs:operate",
  forbidden: ONLY_OPERATORS,
  may: (viewer: Viewer) => {
    const actor = actorOf(viewer);
    return actor && eventsFor("dead", actor.kind).includes("replay") ? null : ONLY_OPERATORS;
  },
} as const;

/** The dry run: resolve the selection now, and say how many would be replayed and why others would not. */
export const previewReplayAction = consoleAction({
  ...REPLAYER,
  audit: "replay.preview",
  input: ReplaySelection,
  invalid: (e) =>
    e.issues.some((i) => i.code === "too_big" && i.path[0] === "ids")
      ? new AppError("too_many", `Select at most ${MAX_SELECTED.toLocaleString("en-US")} jobs at once, or replay their whole group.`)
      : "That selection is not valid: reload the page and try again.",
  failed: "Could not prepare the replay: the database did not answer. Details are in the server log.",
  read: async ({ tx, input: s, actor }) => {
    if (s.kind === "all") {
      // Every dead job in scope: exactly the jobs list's "dead" tab under the same tenant and time range.
      const { tenant, since } = resolveScope(s.scope);
      const filter = JobFilters.parse({ state: "dead", tenant, finishedFrom: since });
      const p = await previewBulk(tx, { selection: { filter }, event: "replay", actor: actor() });
      return { ok: true, data: { ...p, description: describe(s) } };
    }
    let ids: string[];
    let groupCapped = false;
    if (s.kind === "group") {
      // Not the jobs list's errorClass filter (a class on ANY run): the group is the class of the LAST run.
      const group = await listDeadGroupIds(tx, { ...resolveScope(s.scope), type: s.type, errorClass: s.errorClass, cap: BULK_CAP });
      ids = group.ids;
      groupCapped = group.capped;
    } else {
      ids = s.ids;
    }
    if (ids.length === 0) throw new AppError("empty", "This group has no dead jobs any more.");
    const p = await previewBulk(tx, { selection: { ids }, event: "replay", actor: actor() });
    return { ok: true, data: { ...p, capped: p.capped || groupCapped, description: describe(s) } };
  },
});

/** Confirmed: replay exactly the jobs the dry run froze, each only if it is still as the dry run saw it. */
export const startReplayAction = consoleAction({
  ...REPLAYER,
  audit: "replay.start",
  input: StartInput,
  invalid: () => "That replay is not valid: run the dry run again.",
  failed: "Could not start the replay: the database did not answer. Details are in the server log.",
  call: (ctx) => confirmBulk(ctx, { event: "replay", description: describe(ctx.input.selection), frozen: ctx.input.frozen }),
});

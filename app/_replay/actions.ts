"use server";

import { z } from "zod";
import { actorOf, withViewerRead, type Viewer } from "@/lib/auth/viewer";
import { consoleAction } from "@/lib/frame/action";
import { confirmBulk } from "@/lib/frame/bulk-confirm";
import { eventsFor } from "@/lib/fsm/machine";
import { BULK_CAP, fromTuple, FrozenTuple, previewBulk, toTuple, type BulkSelection } from "@/lib/jobs/bulk";
import { listDeadGroupIds } from "@/lib/jobs/dead";
import { JobFilters, parseJobFilters } from "@/lib/jobs/filters";
import { paramFieldsOf } from "@/lib/jobs/param-fields";
import { checkReplayParams, currentParams, describeDiff, paramsDiff, replayRisks } from "@/lib/jobs/replay";
import { maySubmit } from "@/lib/jobs/job-types";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/result";
import { describeFilter } from "../jobs/_components/describe";
import { resolveScope, WINDOW_KEYS } from "../dead/scope";
import type { ReplayEdit, ReplayPreview } from "./replay-types";

/**
 * Replay, the one path: a dead job from its page, checked jobs or a group on /dead, a selection or a
 * filter on /jobs all come here — the same dry run (what would be replayed, what would not and why,
 * which jobs are likely to die the same way, how many attempts a replay gives), the same confirm,
 * the same operation on the engine (lib/jobs/bulk.ts: one guarded transition per job, from the state
 * and version the dry run saw), the same progress and outcome. One job may be replayed with edited
 * params, checked like a new submission of its type and audited with the diff.
 */

/** Checked jobs travel to the server twice (dry run, confirm); a group or a filter has no such limit. */
const MAX_SELECTED = 1_000;
const text = (max: number) => z.string().trim().min(1).max(max);

const Scope = z.strictObject({ tenant: text(100).optional(), window: z.enum(WINDOW_KEYS) });

/** Replay is asked for on checked jobs (one, on its page), a whole group or every dead job of /dead's scope, or a filter of /jobs. */
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
  // The jobs list's query string, as in the URL: parsed exactly as the page parses it.
  z.strictObject({ kind: z.literal("filter"), search: z.string().max(4_000) }),
]);
type ReplaySelection = z.output<typeof ReplaySelection>;

/** `params`: the one job's edited params (any JSON: the job type's schema checks it). */
const PreviewInput = z.strictObject({ selection: ReplaySelection, params: z.unknown().optional() });
const StartInput = z.strictObject({ selection: ReplaySelection, frozen: z.array(FrozenTuple).min(1).max(BULK_CAP), params: z.unknown().optional() });

function describe(s: ReplaySelection): string {
  if (s.kind === "group" || s.kind === "all") {
    const where = [s.scope.tenant && `tenant ${s.scope.tenant}`, s.scope.window !== "all" && `last ${s.scope.window}`].filter(Boolean);
    const what = s.kind === "group" ? `dead · ${s.type} · ${s.errorClass ?? "(no error)"}` : "dead · every type and error";
    return [what, ...where].join(" · ");
  }
  if (s.kind === "filter") return describeFilter(parseJobFilters(new URLSearchParams(s.search)));
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

/** The one job whose params an edit replaces: edits are per job. */
function editedJob(s: ReplaySelection): string {
  if (s.kind !== "ids" || s.ids.length !== 1)
    throw new AppError("invalid_input", "Params can be edited when one job is replayed; replay the others as they are.");
  return s.ids[0]!;
}

/** The edit a dry run offers or checked: the job's params now, its fields, and the edited params' diff or problems. */
async function editOf(tx: Db, jobId: string, edited: unknown): Promise<ReplayEdit | null> {
  const now = await currentParams(tx, jobId);
  if (!now) return null;
  const base = { type: now.type, current: now.params, fields: paramFieldsOf(now.type), isEditable: maySubmit(now.type, "console") };
  if (edited === undefined) return base;
  const checked = checkReplayParams(now.type, edited);
  return checked.ok ? { ...base, params: checked.params, diff: paramsDiff(now.params, checked.params) } : { ...base, issues: checked.issues };
}

/** The dry run: resolve the selection now, and say how many would be replayed, why others would not, and what to expect. */
export const previewReplayAction = consoleAction({
  ...REPLAYER,
  audit: "replay.preview",
  input: PreviewInput,
  invalid: (e) =>
    e.issues.some((i) => i.code === "too_big" && i.path[1] === "ids")
      ? new AppError("too_many", `Select at most ${MAX_SELECTED.toLocaleString("en-US")} jobs at once, or replay their whole group.`)
      : "That selection is not valid: reload the page and try again.",
  failed: "Could not prepare the replay: the database did not answer. Details are in the server log.",
  read: async ({ tx, input: { selection: s, params }, actor }) => {
    // Edited params name one job; anything else is refused before a read.
    if (params !== undefined) editedJob(s);
    let target: BulkSelection;
    let groupCapped = false;
    if (s.kind === "all") {
      // Every dead job in scope: exactly the jobs list's "dead" tab under the same tenant and time range.
      const { tenant, since } = resolveScope(s.scope);
      target = { filter: JobFilters.parse({ state: "dead", tenant, finishedFrom: since }) };
    } else if (s.kind === "filter") {
      target = { filter: parseJobFilters(new URLSearchParams(s.search)) };
    } else if (s.kind === "group") {
      // Not the jobs list's errorClass filter (a class on ANY run): the group is the class of the LAST run.
      const group = await listDeadGroupIds(tx, { ...resolveScope(s.scope), type: s.type, errorClass: s.errorClass, cap: BULK_CAP });
      if (group.ids.length === 0) throw new AppError("empty", "This group has no dead jobs any more.");
      target = { ids: group.ids };
      groupCapped = group.capped;
    } else {
      target = { ids: s.ids };
    }
    const p = await previewBulk(tx, { selection: target, event: "replay", actor: actor() });
    const ids = p.frozen.map((j) => j.id);
    // One job: its params, to replay as they are or edited.
    const single = s.kind === "ids" && s.ids.length === 1 ? s.ids[0]! : null;
    const data: ReplayPreview = {
      description: describe(s),
      total: p.total,
      willApply: p.willApply,
      willSkip: p.willSkip,
      capped: p.capped || groupCapped,
      frozen: p.frozen.map(toTuple),
      risks: await replayRisks(tx, ids),
      edit: single ? await editOf(tx, single, params) : null,
    };
    return { ok: true, data };
  },
});

/** Confirmed: replay exactly the jobs the dry run froze, each only if it is still as the dry run saw it. */
export const startReplayAction = consoleAction({
  ...REPLAYER,
  audit: "replay.start",
  input: StartInput,
  invalid: () => "That replay is not valid: run the dry run again.",
  failed: "Could not start the replay: the database did not answer. Details are in the server log.",
  call: async (ctx) => {
    const { selection, frozen, params } = ctx.input;
    let description = describe(selection);
    const jobs = frozen.map(fromTuple);
    if (params !== undefined) {
      const jobId = editedJob(selection);
      if (jobs.length !== 1 || jobs[0]!.id !== jobId)
        throw new AppError("invalid_input", "Edited params replay the one job their dry run froze: run the dry run again.");
      // Checked again here, in the viewer's scope: the browser's copy of the dry run is not trusted.
      const edit = await withViewerRead(ctx.viewer, (tx) => editOf(tx, jobId, params));
      if (!edit) throw new AppError("refused", "Nothing was replayed: this job no longer exists.");
      if (!edit.isEditable)
        throw new AppError(
          "invalid_input",
          `Nothing was replayed: ${edit.type} jobs are submitted only by Jobscope itself, so their params are not edited here.`,
        );
      if (edit.issues?.length) {
        const i = edit.issues[0]!;
        throw new AppError("invalid_input", `Nothing was replayed: params${i.path ? `.${i.path}` : ""}: ${i.message}.`);
      }
      jobs[0] = { ...jobs[0]!, params: edit.params };
      description = `${description} with edited params: ${describeDiff(edit.diff ?? [])}`;
    }
    return confirmBulk(ctx, { event: "replay", description, frozen: jobs });
  },
});

import "server-only";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { BULK_CAP, type BulkSelection } from "@/lib/jobs/bulk";
import { listDeadGroupIds } from "@/lib/jobs/dead";
import { JobFilters, parseJobFilters } from "@/lib/jobs/filters";
import { maySubmit } from "@/lib/jobs/job-types";
import { paramFieldsOf } from "@/lib/jobs/param-fields";
import { checkReplayParams, currentParams, paramsDiff } from "@/lib/jobs/replay";
import { AppError } from "@/lib/result";
import { describeFilter } from "../jobs/_components/describe";
import { resolveScope, WINDOW_KEYS } from "../dead/scope";
import type { ParamsEdit } from "./types";

/** Jobs picked one by one travel to the server twice (dry run, confirm); a group or a filter has no such limit. */
export const MAX_SELECTED = 1_000;

/** Picked one by one, up to this many are applied at once in the request; a group, a filter or more is a durable operation. */
export const DIRECT_MAX = 20;

const text = (max: number) => z.string().trim().min(1).max(max);
const Scope = z.strictObject({ tenant: text(100).optional(), window: z.enum(WINDOW_KEYS) });

/** The selection as the browser sends it (app/_operation/types.ts SelectionInput), checked strictly. */
export const Selection = z.discriminatedUnion("kind", [
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
export type Selection = z.output<typeof Selection>;

/** The selection in words, for the dialog and the audit log: "dead · report.generate · Timeout · tenant acme". */
export function describeSelection(s: Selection): string {
  if (s.kind === "group" || s.kind === "all") {
    const where = [s.scope.tenant && `tenant ${s.scope.tenant}`, s.scope.window !== "all" && `last ${s.scope.window}`].filter(Boolean);
    const what = s.kind === "group" ? `dead · ${s.type} · ${s.errorClass ?? "(no error)"}` : "dead · every type and error";
    return [what, ...where].join(" · ");
  }
  if (s.kind === "filter") return describeFilter(parseJobFilters(new URLSearchParams(s.search)));
  return s.ids.length === 1 ? `job ${s.ids[0]}` : `${s.ids.length} selected jobs`;
}

/** The jobs a selection names now, as lib/jobs/bulk.ts resolves them; a group is the class of each job's LAST attempt. */
export async function resolve(tx: Db, s: Selection): Promise<{ target: BulkSelection; capped: boolean }> {
  if (s.kind === "ids") return { target: { ids: s.ids }, capped: false };
  if (s.kind === "filter") return { target: { filter: parseJobFilters(new URLSearchParams(s.search)) }, capped: false };
  const { tenant, since } = resolveScope(s.scope);
  // Every dead job in scope: exactly the jobs list's "dead" tab under the same tenant and time range.
  if (s.kind === "all") return { target: { filter: JobFilters.parse({ state: "dead", tenant, finishedFrom: since }) }, capped: false };
  // Not the jobs list's errorClass filter (a class on ANY attempt): the group is the class of the last one.
  const group = await listDeadGroupIds(tx, { tenant, since, type: s.type, errorClass: s.errorClass, cap: BULK_CAP });
  if (group.ids.length === 0) throw new AppError("empty", "This group has no dead jobs any more.");
  return { target: { ids: group.ids }, capped: group.capped };
}

/** The one job whose params an edit replaces: edits are per job. */
export function editedJob(s: Selection): string {
  if (s.kind !== "ids" || s.ids.length !== 1)
    throw new AppError("invalid_input", "Params can be edited when one job is replayed; replay the others as they are.");
  return s.ids[0]!;
}

/** The edit a dry run offers or checked: the job's params now, its fields, and the edited params' diff or problems. */
export async function editOf(tx: Db, jobId: string, edited: unknown): Promise<ParamsEdit | null> {
  const now = await currentParams(tx, jobId);
  if (!now) return null;
  const base = { type: now.type, current: now.params, fields: paramFieldsOf(now.type), isEditable: maySubmit(now.type, "console") };
  if (edited === undefined) return base;
  const checked = checkReplayParams(now.type, edited);
  return checked.ok ? { ...base, params: checked.params, diff: paramsDiff(now.params, checked.params) } : { ...base, issues: checked.issues };
}

/** Edited params as the confirm may apply them: checked again (the browser's copy of the dry run is not trusted), or the refusal. */
export function acceptedEdit(edit: ParamsEdit | null): ParamsEdit & { params: unknown } {
  if (!edit) throw new AppError("refused", "Nothing was replayed: this job no longer exists.");
  if (!edit.isEditable)
    throw new AppError(
      "invalid_input",
      `Nothing was replayed: ${edit.type} jobs are submitted only by Jobscope itself, so their params are not edited here.`,
    );
  const issue = edit.issues?.[0];
  if (issue) throw new AppError("invalid_input", `Nothing was replayed: params${issue.path ? `.${issue.path}` : ""}: ${issue.message}.`);
  return edit as ParamsEdit & { params: unknown };
}

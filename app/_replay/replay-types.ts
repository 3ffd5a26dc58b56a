import type { FrozenTuple } from "@/lib/jobs/bulk";
import type { ParamField } from "@/lib/jobs/param-fields";
import type { ParamsChange } from "@/lib/jobs/params-diff";
import type { ParamsIssue, ReplayRisks } from "@/lib/jobs/replay";
import type { DeadScopeParams } from "../dead/scope";

/** One job's params in a replay's dry run: as it runs now, its fields, and an edit's diff or problems. */
export type ReplayEdit = {
  type: string;
  /** What the job runs with now: as submitted, or as its last edited replay left it. */
  current: unknown;
  fields: ParamField[] | null;
  /** Jobscope's own types are replayed as they are. */
  isEditable: boolean;
  /** The edited params, as the type's schema gives them back (defaults filled), when they pass. */
  params?: unknown;
  diff?: ParamsChange[];
  issues?: ParamsIssue[];
};

/** A dry run's answer: what the confirm sends back (`frozen`), and what the dialog says. */
export type ReplayPreview = {
  description: string;
  total: number;
  willApply: number;
  willSkip: { reason: string; count: number }[];
  capped: boolean;
  frozen: FrozenTuple[];
  risks: ReplayRisks;
  /** One job's replay: its params, to replay as they are or edited. */
  edit: ReplayEdit | null;
};

/** What the page asks to replay; the server checks it with strict zod (actions.ts). */
export type ReplaySelectionInput =
  | { kind: "ids"; ids: string[] }
  | { kind: "group"; type: string; errorClass: string | null; scope: { tenant?: string; window: string } }
  | { kind: "all"; scope: { tenant?: string; window: string } }
  | { kind: "filter"; search: string };

/** A replay the person asked for: what, and how the dialog names it. */
export type ReplayRequest = { key: number; selection: ReplaySelectionInput; title: string };

/** What the groups table hands each group's jobs: the page's scope, its pause switch, the checked jobs and how to replay. */
export type GroupListProps = {
  scope: DeadScopeParams;
  isPaused: boolean;
  selected: ReadonlySet<string>;
  onToggle: (ids: string[], on: boolean) => void;
  /** Absent for roles that may not replay: no replay buttons are shown. */
  onReplay?: (selection: ReplaySelectionInput, title: string) => void;
};

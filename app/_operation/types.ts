// The one wire format of an operation on jobs (app/_operation/actions.ts): what the page asks for,
// and what the dry run answers; the confirm and the progress poll answer
// OperationResult (lib/client/wire.ts). Types only: the
// browser imports them.
import type { JobState } from "@/lib/fsm/table";
import type { OperationKind } from "@/lib/client/wire";
import type { FrozenTuple } from "@/lib/jobs/bulk";
import type { ParamField } from "@/lib/jobs/param-fields";
import type { ParamsChange } from "@/lib/jobs/params-diff";
import type { ReplayRisks } from "@/lib/jobs/replay";
import type { InputIssue } from "@/lib/result";

/** /dead's scope, as it travels: a tenant and how far back. */
type Scope = { tenant?: string; window: string };

/** What the person picked: jobs by id, a dead group or every dead job of /dead's scope, or the jobs list's filter (its query string). */
export type SelectionInput =
  | { kind: "ids"; ids: string[] }
  | { kind: "group"; type: string; errorClass: string | null; scope: Scope }
  | { kind: "all"; scope: Scope }
  | { kind: "filter"; search: string };

/**
 * An operation the person asked for: the event, the selection, how the dialog names it. `expected`:
 * the one job's state and version as its page shows them, when the page knows them; the dialog
 * then asks (`question`) instead of running a dry run, and the transition is guarded by what the
 * person saw.
 */
export type OperationRequest = {
  key: number;
  operation: OperationKind;
  selection: SelectionInput;
  title: string;
  expected?: { state: JobState; version: number };
  question?: string;
};

/** One job's params in a replay's dry run: as it runs now, its fields, and an edit's diff or problems. */
export type ParamsEdit = {
  type: string;
  /** What the job runs with now: as submitted, or as its last edited replay left it. */
  current: unknown;
  fields: ParamField[] | null;
  /** Jobscope's own types are replayed as they are. */
  isEditable: boolean;
  /** The edited params, as the type's schema gives them back (defaults filled), when they pass. */
  params?: unknown;
  diff?: ParamsChange[];
  issues?: InputIssue[];
};

/** A dry run's answer: what the confirm sends back (`jobs`), and what the dialog says. */
export type OperationPreview = {
  operation: OperationKind;
  description: string;
  total: number;
  willApply: number;
  willSkip: { reason: string; count: number }[];
  /** The selection held more jobs than one operation takes: only the newest were frozen. */
  capped: boolean;
  /** The jobs that will be moved, as they are now: [id, state, version]. */
  jobs: FrozenTuple[];
  /** Applied at once in this request, or recorded and run by a worker (durable, with progress). */
  isDirect: boolean;
  /** A replay's: jobs likely to die the same way, and how many attempts it gives. */
  risks: ReplayRisks | null;
  /** One job's replay: its params, to replay as they are or edited. */
  edit: ParamsEdit | null;
  /** A deletion's: the history that goes with the jobs. */
  history: { runs: number; events: number } | null;
};

import type { DeadGroupDto, DeadJobDto } from "@/lib/client/wire";
import type { DeadGroup, DeadJob } from "@/lib/jobs/dead";
import type { SelectionInput } from "../_operation/types";
import type { DeadScopeParams } from "./scope";

/** The name of the group of dead jobs that carry no error class. */
export const NO_ERROR = "(no error)";

/** A group as the page names it: "email.send · SmtpTimeout". */
export const groupName = (g: Pick<DeadGroupDto, "type" | "errorClass">) => `${g.type} · ${g.errorClass ?? NO_ERROR}`;

export const toGroupDto = (g: DeadGroup): DeadGroupDto => ({
  ...g,
  firstSeen: g.firstSeen.toISOString(),
  lastSeen: g.lastSeen.toISOString(),
});
export const toJobDto = (j: DeadJob): DeadJobDto => ({ ...j, finishedAt: j.finishedAt.toISOString() });

/** The replay buttons inside the groups' rows. */
export const SMALL_BUTTON =
  "rounded-md border border-neutral-300 bg-white px-2.5 py-1 text-xs font-medium whitespace-nowrap text-neutral-800 shadow-xs hover:bg-neutral-50";

/** What the groups table hands each group's jobs: the page's scope, its pause switch, the checked jobs and how to replay. */
export type GroupListProps = {
  scope: DeadScopeParams;
  isPaused: boolean;
  selected: ReadonlySet<string>;
  onToggle: (ids: string[], on: boolean) => void;
  /** Absent for roles that may not replay: no replay buttons are shown. */
  onReplay?: (selection: SelectionInput, title: string) => void;
};

import type { BulkPreview } from "@/lib/jobs/bulk";
import type { DeadScopeParams } from "./scope";

/** A dry run's answer: what the confirm sends back (`frozen`), and what the dialog says. */
export type ReplayPreview = BulkPreview & { description: string };

/** What the page asks to replay; the server checks it with strict zod (actions.ts). */
export type ReplaySelectionInput =
  | { kind: "ids"; ids: string[] }
  | { kind: "group"; type: string; errorClass: string | null; scope: { tenant?: string; window: string } }
  | { kind: "all"; scope: { tenant?: string; window: string } };

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

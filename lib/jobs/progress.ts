import type { JobState } from "../fsm/table";

/** The states in which a handler runs and may report progress (the job page and the list show it then). */
export const PROGRESS_STATES: readonly JobState[] = ["running", "paused", "cancelling"];

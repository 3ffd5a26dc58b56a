import type { DeadGroupDto, DeadJobDto } from "@/lib/client/wire";
import type { DeadGroup, DeadJob } from "@/lib/jobs/dead";

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

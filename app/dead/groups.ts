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

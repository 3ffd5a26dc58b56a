import type { ActorKind } from "../fsm/table";
import { heldUntilOf } from "./poison";
import type { JobDetail, JobListRow } from "./queries";

/**
 * The one redaction of what a tenant reads, in the console and through the API alike (lib/api/jobs.ts).
 *
 * A job's detail as a tenant member may read it: the machinery's names are left
 * out before anything leaves the server — worker ids, lease owners, the supervisor's id, and the
 * e-mail of the staff member who acted (the role stays: the actor kind). A tenant's own people and
 * API keys stay named. A lost lease reads as an interruption, not as the machinery's term.
 */
export function redactForTenant(d: JobDetail): JobDetail {
  const who = (kind: ActorKind, id: string) => (kind === "tenant" || kind === "api" ? id : "");
  return {
    ...d,
    job: { ...d.job, leaseOwner: null },
    // No stacks either: they show the platform's own code (its files and functions), not the tenant's job.
    runs: d.runs.map(({ errorStack, ...r }) => {
      void errorStack;
      return r.outcome === "lease_expired" || r.errorClass === "LeaseExpired"
        ? { ...r, workerId: "", errorClass: "Interrupted", errorMessage: "the machine running it stopped responding" }
        : { ...r, workerId: "" };
    }),
    // The supervisor's payloads carry its lease errors and the jobs a crash is blamed on; a tenant reads
    // the run's own words instead, and keeps only how long a crash held the job back (its wait's cause).
    events: d.events.map((e) => ({
      ...e,
      actorId: who(e.actorKind, e.actorId),
      payload: e.actorKind === "supervisor" ? heldOnly(e.payload) : e.payload,
    })),
    // Refused transitions are the machinery's record (conflicts between its own writers): staff's, not a tenant's.
    rejections: [],
  };
}

function heldOnly(payload: Record<string, unknown> | null): Record<string, unknown> | null {
  const heldUntil = heldUntilOf(payload);
  return heldUntil === null ? null : { crash: { heldUntil: new Date(heldUntil).toISOString() } };
}

/** A row of the jobs list as a tenant member may read it: no last worker; a lost lease reads as an interruption. */
export function redactListRowForTenant<R extends Pick<JobListRow, "lastWorker" | "lastErrorClass">>(row: R): R {
  return { ...row, lastWorker: null, lastErrorClass: row.lastErrorClass === "LeaseExpired" ? "Interrupted" : row.lastErrorClass };
}

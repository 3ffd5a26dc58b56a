"use server";

import { z } from "zod";
import type { AuditAction } from "@/lib/audit/actions";
import { actorOf } from "@/lib/auth/viewer";
import { consoleAction } from "@/lib/frame/action";
import { isEventOf } from "@/lib/fsm/machine";
import { EVENTS, STATES, type JobEvent } from "@/lib/fsm/table";
import { transition } from "@/lib/jobs/transition";
import { AppError, describeInvalid } from "@/lib/result";
import { viewerTimeZone } from "@/lib/server/time-zone";
import { describeRejection } from "./action-result";

const Input = z.strictObject({
  jobId: z.uuid(),
  event: z.enum(EVENTS),
  expectedState: z.enum(STATES),
  expectedVersion: z.int().min(0),
});

const idOf = (raw: unknown) => (raw && typeof raw === "object" && "jobId" in raw && typeof raw.jobId === "string" ? [raw.jobId] : []);

/** The action's name, chosen here from the fixed list: never the request's text, which a crafted request could set to anything. */
function auditNameOf(raw: unknown): AuditAction {
  const asked = (raw as { event?: unknown } | null)?.event;
  return typeof asked === "string" && (EVENTS as readonly string[]).includes(asked) ? `job.${asked as JobEvent}` : "job.unknown_event";
}

/**
 * Apply one event to one job, as the person using the console, guarded by the
 * state and version the page was showing: a stale page is refused, never obeyed.
 * The state machine's refusal is a value: it commits with its rejection row and
 * its audit row, and the answer names who moved the job first.
 */
export const applyJobEventAction = consoleAction({
  permission: "jobs:read",
  audit: (_input, raw) => auditNameOf(raw),
  jobIds: idOf,
  span: "job.event",
  input: Input,
  invalid: (e) => `Not applied: ${describeInvalid(e)}.`,
  failed: "The server could not complete this action. Details are in the server log; the page shows the job as it is now.",
  change: async ({ tx, input: { jobId, event, expectedState, expectedVersion }, viewer }) => {
    const actor = actorOf(viewer);
    if (!actor || !isEventOf(actor.kind, event)) throw new AppError("forbidden", `Your role (${viewer.role}) may not apply ${event}.`);
    // Replay has one path (app/_replay/actions.ts): its dry run warns of poison and permanent errors and
    // says how many attempts it gives, its confirm may carry edited params, and it runs on the engine.
    if (event === "replay")
      throw new AppError("invalid_input", "Not applied: a replay goes through its dry run. Use Replay on the job's page or on /dead.");
    const r = await transition(tx, { jobId, event, actor, expected: { state: expectedState, version: expectedVersion } });
    // A job the viewer cannot see is "no such job": the same answer as a job that does not exist.
    if (!r.ok) return { ok: false, error: describeRejection(r, event, Date.now(), await viewerTimeZone()), reason: `${r.kind}: ${r.reason}` };
    return { ok: true, data: { event, from: r.from, state: r.job.state, stateVersion: r.job.stateVersion }, reason: `${r.from} → ${r.job.state}` };
  },
});

"use server";

import { z } from "zod";
import { currentActor } from "@/lib/auth/actor";
import { pool } from "@/lib/db/client";
import { EVENTS, STATES, TRANSITIONS, type ActorKind } from "@/lib/fsm/table";
import { transition } from "@/lib/jobs/transition";
import { describeRejection, type JobActionResult } from "./action-result";

/** The events the table lets an actor of `kind` apply to an existing job (never `submit`). */
function eventsAllowed(kind: ActorKind): ReadonlySet<string> {
  return new Set(TRANSITIONS.filter((t) => t.from !== null && (t.actors as readonly ActorKind[]).includes(kind)).map((t) => t.event));
}

function inputFor(kind: ActorKind) {
  const allowed = eventsAllowed(kind);
  return z.strictObject({
    jobId: z.uuid(),
    event: z.enum(EVENTS).refine((e) => allowed.has(e), { message: `not an event a ${kind} may apply` }),
    expectedState: z.enum(STATES),
    expectedVersion: z.int().min(0),
  });
}

/**
 * Apply one event to one job, as the person using the console, guarded by the
 * state and version the page was showing: a stale page is refused, never obeyed.
 */
export async function applyJobEventAction(raw: unknown): Promise<JobActionResult> {
  try {
    const actor = await currentActor();
    const parsed = inputFor(actor.kind).safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.join(".") || "input";
      return { ok: false, error: { code: "invalid_input", message: `Not applied: ${where}: ${issue?.message ?? "invalid"}.` } };
    }
    const { jobId, event, expectedState, expectedVersion } = parsed.data;
    const r = await transition(pool(), { jobId, event, actor, expected: { state: expectedState, version: expectedVersion } });
    if (!r.ok) return describeRejection(r, event, Date.now());
    return { ok: true, data: { event, from: r.from, state: r.job.state, stateVersion: r.job.stateVersion } };
  } catch (err) {
    // The cause goes to the server log only: a database error can name tables, hosts or credentials.
    console.error("applyJobEventAction failed:", err);
    return {
      ok: false,
      error: {
        code: "internal",
        message: "The server could not complete this action. Details are in the server log; the page shows the job as it is now.",
      },
    };
  }
}

"use server";

import { z } from "zod";
import type { AuditAction } from "@/lib/audit/actions";
import { recordAudit } from "@/lib/audit/audit";
import { auditDenied, auditRefusedRequest, principalOf } from "@/lib/audit/console";
import { actorOf, authorize, withViewer } from "@/lib/auth/viewer";
import { EVENTS, STATES, TRANSITIONS, type ActorKind, type JobEvent } from "@/lib/fsm/table";
import { transition } from "@/lib/jobs/transition";
import { withSpan } from "@/lib/tracing/tracing";
import { describeRejection, type JobActionResult } from "./action-result";

/** The events the table lets an actor of `kind` apply to an existing job (never `submit`). */
function eventsAllowed(kind: ActorKind): ReadonlySet<string> {
  return new Set(TRANSITIONS.filter((t) => t.from !== null && (t.actors as readonly ActorKind[]).includes(kind)).map((t) => t.event));
}

const Input = z.strictObject({
  jobId: z.uuid(),
  event: z.enum(EVENTS),
  expectedState: z.enum(STATES),
  expectedVersion: z.int().min(0),
});

const refused = (code: "invalid_input" | "forbidden", message: string): JobActionResult => ({ ok: false, error: { code, message } });
const idOf = (raw: unknown) => (raw && typeof raw === "object" && "jobId" in raw && typeof raw.jobId === "string" ? [raw.jobId] : []);

/**
 * Apply one event to one job, as the person using the console, guarded by the
 * state and version the page was showing: a stale page is refused, never obeyed.
 * A server action is a public POST endpoint: who may do what is decided here,
 * and the transition and its audit row commit together.
 */
export async function applyJobEventAction(raw: unknown): Promise<JobActionResult> {
  // A span per console action (lib/tracing): a no-op without an OpenTelemetry SDK.
  return withSpan("console job.event", { "jobscope.console.action": "job.event" }, async () => {
    // The action's name is chosen here, from the fixed list: never the request's text (issue 16).
    const asked = (raw as { event?: unknown } | null)?.event;
    const action: AuditAction = typeof asked === "string" && (EVENTS as readonly string[]).includes(asked) ? `job.${asked as JobEvent}` : "job.unknown_event";
    try {
      const auth = await authorize("jobs:read");
      if (!auth.ok) {
        await auditDenied(auth, action, idOf(raw));
        return refused("forbidden", auth.message);
      }
      const viewer = auth.viewer;
      const parsed = Input.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue?.path.join(".") || "input";
        const message = `Not applied: ${where}: ${issue?.message ?? "invalid"}.`;
        await auditRefusedRequest(viewer, action, "invalid", message, idOf(raw));
        return refused("invalid_input", message);
      }
      const { jobId, event, expectedState, expectedVersion } = parsed.data;
      const actor = actorOf(viewer);
      if (!actor || !eventsAllowed(actor.kind).has(event)) {
        const message = `Your role (${viewer.role}) may not apply ${event}.`;
        await auditRefusedRequest(viewer, `job.${event}`, "denied", message, [jobId]);
        return refused("forbidden", message);
      }
      return await withViewer(viewer, async (tx) => {
        const r = await transition(tx, { jobId, event, actor, expected: { state: expectedState, version: expectedVersion } });
        await recordAudit(tx, {
          ...principalOf(viewer),
          via: "console",
          action: `job.${event}`,
          jobIds: [jobId],
          outcome: r.ok ? "applied" : "refused",
          reason: r.ok ? `${r.from} → ${r.job.state}` : `${r.kind}: ${r.reason}`,
        });
        // A job the viewer cannot see is "no such job": the same answer as a job that does not exist.
        if (!r.ok) return describeRejection(r, event, Date.now());
        return { ok: true, data: { event, from: r.from, state: r.job.state, stateVersion: r.job.stateVersion } } as const;
      });
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
  });
}

import { eventsOf } from "../fsm/machine";
import { EVENTS } from "../fsm/table";

/**
 * Every action name the audit log may hold. A name always comes from this list, chosen by the
 * server's code — never from the request (a crafted event name was once stored as the action).
 * drizzle/0013_audit_hardening.sql makes the same list a CHECK constraint; lib/audit/actions.test.ts
 * keeps the two equal.
 */
export const AUDIT_ACTIONS = [
  // One job, from the console (every event of the state machine) or the tenant API (submit, cancel).
  ...EVENTS.map((e) => `job.${e}` as const),
  /** A console job action whose event was not one of the state machine's (the input is refused). */
  "job.unknown_event",
  // Bulk actions and dead-job replay.
  "bulk.preview",
  "bulk.start",
  // Finished jobs deleted from the console, with their history, under retention's rules.
  "jobs.delete_preview",
  "jobs.delete",
  // The events an operator may apply to existing jobs: the ones a bulk action can carry.
  ...eventsOf("operator").map((e) => `bulk.${e}` as const),
  "replay.preview",
  "replay.start",
  // API keys.
  "api_key.create",
  "api_key.revoke",
  // Administration.
  "admin.user.create",
  "admin.user.role",
  "admin.user.deactivate",
  "admin.user.reactivate",
  "admin.user.password_reset",
  "admin.tenant.create",
  "admin.tenant.rename",
  "admin.tenant.suspend",
  "admin.tenant.resume",
  // Queues and schedules (app/queues, app/schedules); `queue.change` when the input named no change.
  "queue.pause",
  "queue.resume",
  "queue.limit",
  "queue.fair",
  "queue.change",
  "schedule.create",
  "schedule.pause",
  "schedule.resume",
  "schedule.update",
  "schedule.delete",
  "schedule.run_now",
  // A worker process asked to drain (app/workers).
  "worker.drain",
  // Alert rules (app/alerts, lib/alerts).
  "alert.create",
  "alert.enable",
  "alert.disable",
  "alert.test",
  // Signing in and out, and a person's own account.
  "auth.sign_in",
  "auth.sign_out",
  "auth.password_change",
  "auth.name_change",
  "auth.session_revoke",
  // Requests refused before any action could be known.
  "console.cross_origin",
  // The audit log's own retention (lib/audit/retention.ts).
  "audit.retention",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

const KNOWN: ReadonlySet<string> = new Set(AUDIT_ACTIONS);
export const isAuditAction = (s: string): s is AuditAction => KNOWN.has(s);

import type { z } from "zod";
import type { AuditAction } from "@/lib/audit/actions";
import { recordAudit, type AuditOutcome } from "@/lib/audit/audit";
import { auditDenied, auditRefusedRequest, principalOf } from "@/lib/audit/console";
import { actorOf, withViewer, type Authorized, type Viewer } from "@/lib/auth/viewer";
import { pool } from "@/lib/db/client";
import type { ScopedSql } from "@/lib/db/scope";
import type { Actor } from "@/lib/jobs/types";
import { withSpan } from "@/lib/tracing/tracing";

/** What an operator's settings action (a queue, a schedule) answers: what was done, or why nothing was. */
export type OperateResult<T = null> = { ok: true; message: string; data: T } | { ok: false; error: { code: OperateErrorCode; message: string } };
export type OperateErrorCode = "forbidden" | "invalid_input" | "refused" | "internal";

/** What `apply` decided: applied (committed with its audit row), or refused (rolled back, audited alone). */
export type Applied<T> = { ok: true; message: string; data: T };
export type Refused = { ok: false; code: "invalid_input" | "refused"; message: string };

class Rollback extends Error {
  constructor(readonly refusal: Refused) {
    super(refusal.message);
  }
}

/**
 * The frame of the queue and schedule actions. The action calls `authorize` in its own body (the
 * coverage test looks for it there) and hands the answer in; the frame then refuses and audits a
 * denial, parses the input strictly, and runs `apply` in the viewer's scoped transaction with its
 * audit row, so a change and its record commit together. A refusal found inside rolls the
 * transaction back and is audited on its own; an unknown failure goes to the server log only.
 */
export async function operate<S extends z.ZodType, T>(
  auth: Authorized,
  raw: unknown,
  schema: S,
  actionOf: (input: z.output<S> | null) => AuditAction,
  apply: (tx: ScopedSql, input: z.output<S>, who: { viewer: Viewer; actor: Actor }) => Promise<Applied<T> | Refused>,
): Promise<OperateResult<T>> {
  // A span per console action (lib/tracing): a no-op without an OpenTelemetry SDK.
  return withSpan(`console ${actionOf(null)}`, { "jobscope.console.action": actionOf(null) }, () => run(auth, raw, schema, actionOf, apply));
}

async function run<S extends z.ZodType, T>(
  auth: Authorized,
  raw: unknown,
  schema: S,
  actionOf: (input: z.output<S> | null) => AuditAction,
  apply: (tx: ScopedSql, input: z.output<S>, who: { viewer: Viewer; actor: Actor }) => Promise<Applied<T> | Refused>,
): Promise<OperateResult<T>> {
  let action = actionOf(null);
  let viewer: Viewer | null = null;
  try {
    if (!auth.ok) {
      await auditDenied(auth, action);
      return { ok: false, error: { code: "forbidden", message: auth.message } };
    }
    viewer = auth.viewer;
    const actor = actorOf(viewer);
    if (!actor) {
      const message = `Your role (${viewer.role}) may not change settings.`;
      await auditRefusedRequest(viewer, action, "denied", message);
      return { ok: false, error: { code: "forbidden", message } };
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const message = `Nothing was changed. ${issue?.path.join(".") || "input"}: ${issue?.message ?? "invalid"}.`;
      await auditRefusedRequest(viewer, action, "invalid", message);
      return { ok: false, error: { code: "invalid_input", message } };
    }
    action = actionOf(parsed.data);
    const who = { viewer, actor };
    try {
      return await withViewer(viewer, async (tx) => {
        const r = await apply(tx, parsed.data, who);
        if (!r.ok) throw new Rollback(r);
        await recordAudit(tx, { ...principalOf(who.viewer), via: "console", action, outcome: "applied", reason: r.message });
        return r;
      });
    } catch (err) {
      if (!(err instanceof Rollback)) throw err;
      const outcome: AuditOutcome = err.refusal.code === "invalid_input" ? "invalid" : "refused";
      await recordAudit(pool(), { ...principalOf(who.viewer), via: "console", action, outcome, reason: err.refusal.message });
      return { ok: false, error: { code: err.refusal.code, message: err.refusal.message } };
    }
  } catch (err) {
    console.error(`${action} failed:`, err);
    try {
      const principal = viewer ? principalOf(viewer) : { userId: null, actor: "anonymous", role: null, tenantId: null };
      await recordAudit(pool(), { ...principal, via: "console", action, outcome: "error", reason: "internal error (see the server log)" });
    } catch (auditErr) {
      console.error(`[jobscope] could not audit the failed ${action}:`, auditErr);
    }
    return {
      ok: false,
      error: { code: "internal", message: "The server could not complete this. Details are in the server log; nothing was changed." },
    };
  }
}

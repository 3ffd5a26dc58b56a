import { and, desc, eq, gte, lt, sql } from "drizzle-orm";
import type { Role } from "../auth/permissions";
import type { Db } from "../db/client";
import { distinctValues } from "../db/distinct-values";
import { columnsExcept, execute, run } from "../db/drizzle";
import { auditLog, type AUDIT_OUTCOMES } from "../db/schema-identity";
import type { AuditAction } from "./actions";

export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** Who acted: a signed-in user, an API key, or nobody (an unauthenticated call). */
export type AuditPrincipal = {
  userId: string | null;
  /** An email, `api-key:<prefix>`, or `anonymous`. */
  actor: string;
  role: Role | null;
  tenantId: string | null;
};

export type AuditEntry = AuditPrincipal & {
  via: "console" | "api";
  /** From the fixed list (lib/audit/actions.ts), never from the request. */
  action: AuditAction;
  jobIds?: readonly string[];
  outcome: AuditOutcome;
  reason?: string | null;
  /** How many attempts this row stands for (aggregated anonymous denials, lib/audit/anonymous.ts). */
  repeatCount?: number;
  /** The bulk operation (or replay) this row stands for: its items are reached from it (lib/jobs/bulk.ts). */
  operationId?: string | null;
};

export const ANONYMOUS: AuditPrincipal = { userId: null, actor: "anonymous", role: null, tenantId: null };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Append one row to the audit log. Call it with the transaction that applied
 * (or refused) the transition, so the record and the change commit together.
 */
export async function recordAudit(db: Db, e: AuditEntry): Promise<void> {
  // Only well-formed ids are kept as targets: a fuzzed id is described in the reason instead.
  const jobIds = (e.jobIds ?? []).filter((id) => UUID.test(id)).slice(0, 10_000);
  // PostgreSQL text cannot hold NUL, and a refused request's reason may quote fuzzed input.
  const text = (s: string, max: number) => s.replace(/\u0000/g, "\uFFFD").slice(0, max);
  await execute(
    db,
    sql`
    INSERT INTO audit_log (user_id, actor, role, tenant_id, via, action, job_ids, outcome, reason, repeat_count, operation_id)
    VALUES (${e.userId}, ${text(e.actor, 200)}, ${e.role}, ${e.tenantId}, ${e.via}, ${e.action},
            ${sql.param(jobIds)}::uuid[], ${e.outcome}, ${e.reason ? text(e.reason, 2000) : null}, ${e.repeatCount ?? 1},
            ${e.operationId && UUID.test(e.operationId) ? e.operationId : null}::uuid)`,
  );
}

/** An audit row as the page lists it: every column but the user's id (the actor names them). */
const auditColumns = columnsExcept(auditLog, "userId");
export type AuditRow = Omit<typeof auditLog.$inferSelect, "userId">;

export type AuditFilters = { actor?: string; action?: string; outcome?: AuditOutcome; since?: Date; until?: Date; before?: number };
export const AUDIT_PAGE = 50;

/** Newest first, keyset on id (ids only grow, in commit order close enough for a log). */
export async function listAudit(db: Db, f: AuditFilters): Promise<{ rows: AuditRow[]; next: number | null }> {
  const rows = await run(auditQuery(db, f));
  const more = rows.length > AUDIT_PAGE;
  const page = rows.slice(0, AUDIT_PAGE);
  return { rows: page, next: more ? page[page.length - 1]!.id : null };
}

/** listAudit's query, unawaited: a test EXPLAINs it to check which index serves each filter. */
export function auditQuery(db: Db, f: AuditFilters) {
  return db
    .select(auditColumns)
    .from(auditLog)
    .where(
      and(
        f.actor ? eq(auditLog.actor, f.actor) : undefined,
        f.action ? eq(auditLog.action, f.action) : undefined,
        f.outcome ? eq(auditLog.outcome, f.outcome) : undefined,
        f.since ? gte(auditLog.at, f.since) : undefined,
        f.until ? lt(auditLog.at, f.until) : undefined,
        f.before ? lt(auditLog.id, f.before) : undefined,
      ),
    )
    .orderBy(desc(auditLog.id))
    .limit(AUDIT_PAGE + 1);
}

/** The distinct action names in the log (for the audit page's filter): one index probe per name, not a scan. */
export async function listAuditActions(db: Db): Promise<string[]> {
  const rows = await execute<{ action: string }>(db, sql`SELECT value AS action FROM ${distinctValues(auditLog.action)} a LIMIT 500`);
  return rows.map((r) => r.action);
}

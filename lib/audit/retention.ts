import type { Db } from "../db/client";
import { recordAudit } from "./audit";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/** The audit log keeps at least this long; drizzle/0013's trigger refuses to delete anything younger. */
export const AUDIT_MIN_DAYS = 365;
/** The default: a year and a month, so a yearly review always finds its whole year. */
export const AUDIT_DEFAULT_DAYS = 400;

/**
 * Remove audit rows older than `keepDays` (at least AUDIT_MIN_DAYS), as the owner, in batches,
 * and append one `audit.retention` row saying how many rows up to which time were removed — so
 * a gap in the log is itself on the record. Only a transaction that declares itself a retention
 * run (`jobscope.audit_retention = 'on'`) may delete, and only rows past the minimum
 * (drizzle/0013_audit_hardening.sql); the runtime roles have no DELETE grant at all.
 */
export async function pruneAuditLog(
  db: Db,
  opts: { keepDays?: number; batch?: number; now?: Date } = {},
): Promise<{ deleted: number; before: Date }> {
  const keepDays = opts.keepDays ?? AUDIT_DEFAULT_DAYS;
  if (!(keepDays >= AUDIT_MIN_DAYS)) throw new Error(`the audit log keeps at least ${AUDIT_MIN_DAYS} days (asked: ${keepDays})`);
  const before = new Date((opts.now ?? new Date()).getTime() - keepDays * 86_400_000);
  const batch = opts.batch ?? 5000;
  let deleted = 0;
  for (;;) {
    const n = (await db.transaction(async (tx) => {
      await execute(tx, sql`SELECT set_config('jobscope.audit_retention', 'on', true)`);
      const r = await execute(
        tx,
        sql`
        DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ${before} ORDER BY id LIMIT ${batch})`,
      );
      return r.count;
    })) as number;
    deleted += n;
    if (n < batch) break;
  }
  await recordAudit(db, {
    userId: null,
    actor: "retention",
    role: null,
    tenantId: null,
    via: "console",
    action: "audit.retention",
    outcome: "applied",
    reason: `removed ${deleted} audit row(s) older than ${before.toISOString()} (kept ${keepDays} days)`,
  });
  return { deleted, before };
}

// `npm run audit:retention -- --days 400`: remove audit rows older than the given days (at least
// 365), as the owner (DATABASE_URL), and record that it did. Run it monthly; see docs/security.md.
import { parseArgs } from "node:util";
import { AUDIT_DEFAULT_DAYS, pruneAuditLog } from "../lib/audit/retention";
import { closeDb, connect, databaseUrl } from "../lib/db/client";

const { values } = parseArgs({ options: { days: { type: "string", default: String(AUDIT_DEFAULT_DAYS) } } });
const db = connect(databaseUrl(), { max: 1, appName: "jobscope-audit-retention" });
try {
  const r = await pruneAuditLog(db, { keepDays: Number(values.days) });
  console.log(`[jobscope] audit log: removed ${r.deleted} row(s) older than ${r.before.toISOString()}`);
} finally {
  await closeDb(db);
}

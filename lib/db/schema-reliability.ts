import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { serialId, tenantId, tz } from "./columns";

/** One row per integrity check run (lib/integrity): its window of job activity and what it found. */
export const integrityAudits = pgTable(
  "integrity_audits",
  {
    id: serialId(),
    windowFrom: tz("window_from").notNull(),
    windowTo: tz("window_to").notNull(),
    jobsChecked: integer("jobs_checked").notNull(),
    mismatches: integer("mismatches").notNull(),
    details: jsonb("details").notNull().default([]),
    durationMs: integer("duration_ms").notNull(),
    actor: text("actor").notNull(),
    at: tz("at").notNull().defaultNow(),
  },
  (t) => [check("integrity_audits_window", sql`${t.windowFrom} <= ${t.windowTo}`), index("integrity_audits_at_idx").on(t.at.desc())],
);

/**
 * Where `npm run retention -- --archive` keeps what it removes: one JSON document per job (its
 * catalog row, attempts and events). Maintenance only: no console role reads it (drizzle/0007).
 */
export const jobArchive = pgTable(
  "job_archive",
  {
    jobId: uuid("job_id").primaryKey(),
    tenantId: tenantId(),
    finishedAt: tz("finished_at").notNull(),
    archivedAt: tz("archived_at").notNull().defaultNow(),
    record: jsonb("record").notNull(),
  },
  (t) => [index("job_archive_finished_idx").on(t.finishedAt)],
);

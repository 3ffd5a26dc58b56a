import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

const tz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** One row per integrity audit run (lib/integrity): its window of job activity and what it found. */
export const integrityAudits = pgTable(
  "integrity_audits",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    windowFrom: tz("window_from").notNull(),
    windowTo: tz("window_to").notNull(),
    jobsChecked: integer("jobs_checked").notNull(),
    mismatches: integer("mismatches").notNull(),
    details: jsonb("details").notNull().default([]),
    durationMs: integer("duration_ms").notNull(),
    actor: text("actor").notNull(),
    at: tz("at").notNull().defaultNow(),
  },
  (t) => [
    check("integrity_audits_window", sql`${t.windowFrom} <= ${t.windowTo}`),
    index("integrity_audits_at_idx").on(t.at.desc()),
  ],
);

import { pgView, text, uuid } from "drizzle-orm/pg-core";
import { tz } from "./columns";
import { liveJobColumns } from "./schema";

/**
 * The views the migrations build, declared for their row types: drizzle-kit leaves them to the SQL
 * (`.existing()`). PostgreSQL reports every column of a view as nullable; `notNull()` here says what
 * the view's SQL guarantees. lib/db/drift.test.ts checks the names and types against the database.
 */

/**
 * A job as one row, live or finished: the live row joined to the catalog, or the catalog and the
 * job's last transition (drizzle/0012_narrow_hot_path.sql).
 */
export const jobs = pgView("jobs", {
  id: uuid("id").notNull(),
  ...liveJobColumns(),
  idempotencyKey: text("idempotency_key"),
  finishedAt: tz("finished_at"),
}).existing();

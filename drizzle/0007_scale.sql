-- 0007_scale: the hot table's write cost and its growth (docs/benchmarks.md, docs/scaling.md).
--
-- 1. Heartbeats become HOT updates. The live-lease index keyed heartbeat_at, so each
--    heartbeat (one UPDATE per held job per second) inserted into every index of jobs.
--    Keyed on lease_owner instead (set by the claim, cleared by the final report: those
--    updates move state and are never HOT anyway), a heartbeat changes no indexed column,
--    and with free space on the page (fillfactor) it is a HOT update: no index writes.
--    The supervisor's stale scan reads every live lease through this partial index and
--    sorts them: bounded by the total concurrency of the workers, not by the table size.
DROP INDEX IF EXISTS "jobs_live_heartbeat_idx";
--> statement-breakpoint
CREATE INDEX "jobs_live_lease_idx" ON "jobs" USING btree ("lease_owner") WHERE state IN ('claimed', 'running', 'cancelling');
--> statement-breakpoint
-- 2. Room on each heap page for HOT versions of a row (heartbeats), and autovacuum that
--    keeps up with a table whose live rows are rewritten three times in their first seconds.
ALTER TABLE "jobs" SET (
  fillfactor = 80,
  autovacuum_vacuum_scale_factor = 0.01,
  autovacuum_vacuum_threshold = 1000,
  autovacuum_vacuum_insert_scale_factor = 0.02,
  autovacuum_analyze_scale_factor = 0.02,
  autovacuum_vacuum_cost_delay = 1
);
--> statement-breakpoint
-- The history tables are append-mostly: vacuum them for the visibility map (index-only scans), not for dead rows.
ALTER TABLE "job_runs" SET (autovacuum_vacuum_insert_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.05);
--> statement-breakpoint
ALTER TABLE "job_events" SET (autovacuum_vacuum_insert_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.05);
--> statement-breakpoint
-- 3. No foreign keys from the history tables to jobs. Each checked insert costs a locking
--    lookup of the job row (measured: about a third of the batched write path's time).
--    Runs and events are written only by the write path, in the same statement that moves
--    their job, so they cannot name a job that does not exist; retention deletes a job's
--    history with it (lib/retention). See docs/decisions.md, "History without foreign keys".
ALTER TABLE "job_runs" DROP CONSTRAINT IF EXISTS "job_runs_job_id_jobs_id_fk";
--> statement-breakpoint
ALTER TABLE "job_events" DROP CONSTRAINT IF EXISTS "job_events_job_id_jobs_id_fk";
--> statement-breakpoint
-- 4. Retention may delete history; nothing else may. The append-only triggers stay for
--    UPDATE; a DELETE is let through only in a transaction marked by lib/retention
--    (set_config('jobscope.retention', 'on', true)), the same kind of mark as the write path's.
CREATE FUNCTION history_delete_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('jobscope.retention', true), '') <> 'on' THEN
    RAISE EXCEPTION '% is append-only (only retention deletes history)', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN OLD;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS job_events_append_only ON job_events;
--> statement-breakpoint
CREATE TRIGGER job_events_append_only BEFORE UPDATE ON job_events
  FOR EACH ROW EXECUTE FUNCTION append_only_guard();
--> statement-breakpoint
CREATE TRIGGER job_events_delete_only_by_retention BEFORE DELETE ON job_events
  FOR EACH ROW EXECUTE FUNCTION history_delete_guard();
--> statement-breakpoint
DROP TRIGGER IF EXISTS job_runs_no_delete ON job_runs;
--> statement-breakpoint
CREATE TRIGGER job_runs_delete_only_by_retention BEFORE DELETE ON job_runs
  FOR EACH ROW EXECUTE FUNCTION history_delete_guard();
--> statement-breakpoint
-- 5. Where `npm run retention -- --archive` keeps what it removes: one JSON document per job
--    (the row, its run records and its events). Maintenance only: no console role reads it.
CREATE TABLE "job_archive" (
  "job_id" uuid PRIMARY KEY NOT NULL,
  "tenant_id" text NOT NULL,
  "finished_at" timestamp with time zone NOT NULL,
  "archived_at" timestamp with time zone DEFAULT now() NOT NULL,
  "record" jsonb NOT NULL
);
--> statement-breakpoint
CREATE INDEX "job_archive_finished_idx" ON "job_archive" ("finished_at");
--> statement-breakpoint
-- 0005 grants SELECT on new tables to the runtime roles by default; an archive spans every tenant, outside RLS.
REVOKE ALL ON "job_archive" FROM PUBLIC, jobscope_app, jobscope_worker;

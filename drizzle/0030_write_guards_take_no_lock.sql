-- 0030: the write path's guards of a live row's update and delete (0012) fire AFTER the row is
-- written, not BEFORE. For a BEFORE … FOR EACH ROW trigger on UPDATE or DELETE, PostgreSQL locks the
-- row to fetch it for the trigger (GetTupleForTrigger), whatever its WHEN clause then says: a heap
-- LOCK record in the WAL for every job a report finished, every move and every heartbeat, before the
-- write itself. An AFTER row trigger reads the row without locking it and queues nothing when its
-- WHEN clause is false; when it is true (no mark), the function raises at the end of the statement
-- and the statement is rolled back: refused, nothing written. A row that also breaks a CHECK
-- constraint is now refused by the constraint first. The insert's guard stays BEFORE (an insert
-- locks nothing): it refuses before the row's checks and foreign key are tried. The same for
-- job_log's delete guard: retention's deletes of history (its mark set) locked each row first.
DROP TRIGGER jobs_live_write_path ON jobs_live;
--> statement-breakpoint
DROP TRIGGER jobs_live_write_path_update ON jobs_live;
--> statement-breakpoint
CREATE TRIGGER jobs_live_write_path BEFORE INSERT ON jobs_live FOR EACH ROW
  WHEN (current_setting('jobscope.write_path', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION jobscope_write_path_guard();
--> statement-breakpoint
CREATE TRIGGER jobs_live_write_path_delete AFTER DELETE ON jobs_live FOR EACH ROW
  WHEN (current_setting('jobscope.write_path', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION jobscope_write_path_guard();
--> statement-breakpoint
CREATE TRIGGER jobs_live_write_path_update
  AFTER UPDATE OF "state", "state_version", "attempt", "max_attempts", "lease_owner", "run_worker", "run_claimed_at", "run_started_at", "run_version", "id", "tenant_id"
  ON jobs_live FOR EACH ROW
  WHEN (current_setting('jobscope.write_path', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION jobscope_write_path_guard();
--> statement-breakpoint
DROP TRIGGER job_log_delete_only_by_retention ON job_log;
--> statement-breakpoint
CREATE TRIGGER job_log_delete_only_by_retention AFTER DELETE ON job_log FOR EACH ROW
  WHEN (current_setting('jobscope.retention', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION jobscope_retention_guard();

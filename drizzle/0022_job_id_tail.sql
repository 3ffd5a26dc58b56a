-- 0022: the console prints a job's short id as the last 8 hex digits of its id (lib/jobs/short-id.ts):
-- the first 8 of a time-ordered id are its submit time in ~65 s units, shared by every job of a burst.
-- This index finds the jobs whose id ends with a short id, for the lookup and /jobs/<short id>.
-- One entry per job, written once at submit (job_catalog is never updated).
CREATE INDEX IF NOT EXISTS "job_catalog_id_tail_idx" ON "job_catalog" USING btree (right(("id")::text, 8));

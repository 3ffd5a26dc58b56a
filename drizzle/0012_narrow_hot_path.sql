-- 0012_narrow_hot_path: the engine's hot path is built for batches, and the console's
-- read model is apart from it (DESIGN.md, "The hot path is built for batches…"; docs/decisions.md,
-- "The narrow hot path").
--
-- Storage, one row per fact:
--   job_catalog   what was submitted: written once at submit, never updated; carries the console's
--                 keyset indexes (tenant, type, queue, created) and the idempotency key.
--   jobs_live     the engine's narrow hot row, for jobs that are not finished: claim, lease, retry-due
--                 indexes, plus two console indexes on states the worker's hot path never enters.
--                 A terminal transition DELETEs the row in the same guarded statement; a replay
--                 inserts it again.
--   job_attempts  one row per attempt, written once when the attempt ends. It also records the
--                 worker's own transitions of that attempt (claim, start, and its closing event).
--   job_log       every other transition (an operator's, a tenant's, the supervisor's…): the old
--                 partitioned job_events, without the worker's rows and without submit.
--   A finished job's state is its last transition: an attempt's closing event or a job_log row
--   (job_last_transition()); partial indexes on both serve the console's finished tabs. (A
--   jobs_done table written at each finish cost 5 µs of PostgreSQL CPU per job: docs/decisions.md.)
-- Read model, for every reader that does not need the storage shape:
--   jobs          view: catalog + live or done: the old row.
--   job_runs      view: closed attempts + the open attempt of a leased live row.
--   job_events    view: submit (catalog) + job_log + the worker's transitions derived from the
--                 attempts and the live row: every transition with actor, time, attempt and version.
--
-- Lock time: the whole migration runs in one transaction and rewrites every job row and run record
-- under ACCESS EXCLUSIVE locks (docs/operations.md, "Upgrading to 0012").

-- 1. Set the old tables aside.
ALTER TABLE "jobs" RENAME TO "jobs_old";
--> statement-breakpoint
ALTER TABLE "job_runs" RENAME TO "job_runs_old";
--> statement-breakpoint
ALTER TABLE "job_events" RENAME TO "job_log";
--> statement-breakpoint
-- Its tenant policy looked the job up in jobs; it is replaced below by its own tenant column.
DROP POLICY IF EXISTS app_scope ON job_log;
--> statement-breakpoint
-- 2. The catalog.
CREATE TABLE "job_catalog" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL REFERENCES "tenants"("id"),
	"type" text NOT NULL,
	"queue" text NOT NULL,
	"priority" smallint NOT NULL,
	"max_attempts" integer NOT NULL,
	"params" jsonb NOT NULL,
	"idempotency_key" text,
	"submitted_by_kind" "actor_kind" NOT NULL,
	"submitted_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"not_before" timestamp with time zone NOT NULL,
	CONSTRAINT "job_catalog_max_attempts_positive" CHECK ("max_attempts" >= 1),
	CONSTRAINT "job_catalog_priority_range" CHECK ("priority" BETWEEN 0 AND 9),
	CONSTRAINT "job_catalog_type_nonempty" CHECK (length("type") BETWEEN 1 AND 200 AND length("queue") BETWEEN 1 AND 100)
);
--> statement-breakpoint
-- 3. The live row. run_* describe the job's current (while leased) or last attempt; they are
--    kept after the attempt closes so the statement that closes it can copy them.
CREATE TABLE "jobs_live" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"type" text NOT NULL,
	"queue" text NOT NULL,
	"priority" smallint NOT NULL,
	"state" "job_state" NOT NULL,
	"attempt" integer NOT NULL,
	"max_attempts" integer NOT NULL,
	"state_version" integer NOT NULL,
	"lease_owner" text,
	"heartbeat_at" timestamp with time zone,
	"not_before" timestamp with time zone NOT NULL,
	"run_worker" text,
	"run_claimed_at" timestamp with time zone,
	"run_started_at" timestamp with time zone,
	"run_version" integer,
	"params" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "jobs_live_not_terminal" CHECK ("state" NOT IN ('succeeded', 'dead', 'cancelled')),
	CONSTRAINT "jobs_live_attempt_range" CHECK ("attempt" >= 0 AND "attempt" <= "max_attempts"),
	CONSTRAINT "jobs_live_version_nonnegative" CHECK ("state_version" >= 0),
	CONSTRAINT "jobs_live_leased_iff_owner" CHECK (("state" IN ('claimed', 'running', 'paused', 'cancelling')) = ("lease_owner" IS NOT NULL)),
	CONSTRAINT "jobs_live_leased_has_run" CHECK ("lease_owner" IS NULL OR ("run_worker" = "lease_owner" AND "run_claimed_at" IS NOT NULL AND "run_version" IS NOT NULL))
) WITH (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
        autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02, autovacuum_vacuum_cost_delay = 1);
--> statement-breakpoint
CREATE TABLE "job_attempts" (
	"job_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"tenant_id" text NOT NULL,
	"worker_id" text NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL,
	"claim_version" integer NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone NOT NULL,
	"outcome" "run_outcome" NOT NULL,
	"max_attempts" integer NOT NULL,
	"end_event" "job_event",
	"end_from" "job_state",
	"end_to" "job_state",
	"end_version" integer,
	"retry_at" timestamp with time zone,
	"error_class" text,
	"error_message" text,
	"result" jsonb,
	CONSTRAINT "job_attempts_pkey" PRIMARY KEY ("job_id", "attempt"),
	CONSTRAINT "job_attempts_attempt_positive" CHECK ("attempt" >= 1),
	CONSTRAINT "job_attempts_end_whole" CHECK (("end_event" IS NULL) = ("end_from" IS NULL) AND ("end_event" IS NULL) = ("end_to" IS NULL) AND ("end_event" IS NULL) = ("end_version" IS NULL)),
	CONSTRAINT "job_attempts_versions" CHECK ("end_version" IS NULL OR "end_version" > "claim_version")
) WITH (autovacuum_vacuum_insert_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.05);
--> statement-breakpoint
-- 4. Copy the data: the catalog from the jobs and their submit events; live rows; closed
--    runs with the versions of their claim and, when a worker applied it, their closing event.
INSERT INTO "job_catalog" ("id", "tenant_id", "type", "queue", "priority", "max_attempts", "params", "idempotency_key",
                           "submitted_by_kind", "submitted_by", "created_at", "not_before")
SELECT j.id, j.tenant_id, j.type, j.queue, j.priority, coalesce((s.payload->>'maxAttempts')::int, j.max_attempts), j.params,
       j.idempotency_key, coalesce(s.actor_kind, 'api'), coalesce(s.actor_id, 'unknown'), j.created_at, j.not_before
  FROM jobs_old j
  LEFT JOIN LATERAL (SELECT actor_kind, actor_id, payload FROM job_log e WHERE e.job_id = j.id AND e.event = 'submit' LIMIT 1) s ON true;
--> statement-breakpoint
CREATE TEMP TABLE "claims_0012" ON COMMIT DROP AS
  SELECT DISTINCT ON (job_id, attempt) job_id, attempt, state_version FROM job_log WHERE event = 'claim' ORDER BY job_id, attempt, state_version DESC;
--> statement-breakpoint
CREATE INDEX ON "claims_0012" (job_id, attempt);
--> statement-breakpoint
ANALYZE "claims_0012";
--> statement-breakpoint
INSERT INTO "jobs_live" ("id", "tenant_id", "type", "queue", "priority", "state", "attempt", "max_attempts", "state_version",
                         "lease_owner", "heartbeat_at", "not_before", "run_worker", "run_claimed_at", "run_started_at", "run_version",
                         "params", "created_at", "updated_at")
SELECT j.id, j.tenant_id, j.type, j.queue, j.priority, j.state, j.attempt, j.max_attempts, j.state_version,
       j.lease_owner, j.heartbeat_at, j.not_before,
       CASE WHEN j.lease_owner IS NOT NULL THEN r.worker_id END, CASE WHEN j.lease_owner IS NOT NULL THEN r.claimed_at END,
       CASE WHEN j.lease_owner IS NOT NULL THEN r.started_at END, CASE WHEN j.lease_owner IS NOT NULL THEN c.state_version END,
       j.params, j.created_at, j.updated_at
  FROM jobs_old j
  LEFT JOIN job_runs_old r ON r.job_id = j.id AND r.attempt = j.attempt AND r.outcome IS NULL
  LEFT JOIN claims_0012 c ON c.job_id = j.id AND c.attempt = j.attempt
 WHERE j.finished_at IS NULL;
--> statement-breakpoint
-- max_attempts on history rows is the budget after the transition; for the old rows, the job's
-- current one (exact for a finished job's last transition, the row that is read for it).
INSERT INTO "job_attempts" ("job_id", "attempt", "tenant_id", "worker_id", "claimed_at", "claim_version", "started_at", "finished_at",
                            "outcome", "max_attempts", "end_event", "end_from", "end_to", "end_version", "retry_at", "error_class", "error_message", "result")
SELECT r.job_id, r.attempt, r.tenant_id, r.worker_id, r.claimed_at, coalesce(c.state_version, 1), r.started_at, r.finished_at, r.outcome,
       j.max_attempts, e.event, e.from_state, e.to_state, e.state_version, (e.payload->>'retryAt')::timestamptz, r.error_class, r.error_message, r.result
  FROM job_runs_old r
  JOIN jobs_old j ON j.id = r.job_id
  LEFT JOIN claims_0012 c ON c.job_id = r.job_id AND c.attempt = r.attempt
  -- The transition that closed this run, when a worker applied it: the worker's first event of the
  -- attempt after its claim that left a leased state for a state that holds no lease of this attempt.
  LEFT JOIN LATERAL (
    SELECT e.event, e.from_state, e.to_state, e.state_version, e.payload FROM job_log e
     WHERE e.job_id = r.job_id AND e.attempt = r.attempt AND e.actor_kind = 'worker' AND e.state_version > coalesce(c.state_version, 0)
       AND e.event NOT IN ('claim', 'start')
     ORDER BY e.state_version LIMIT 1) e ON true
 WHERE r.outcome IS NOT NULL;
--> statement-breakpoint
-- 5. job_log keeps what no worker applied; submit is the catalog row. Its rows are append-only
--    except to retention (drizzle/0007_scale.sql), hence the mark for this one cleanup.
SELECT set_config('jobscope.retention', 'on', true);
--> statement-breakpoint
DELETE FROM "job_log" WHERE actor_kind = 'worker' OR event = 'submit';
--> statement-breakpoint
SELECT set_config('jobscope.retention', '', true);
--> statement-breakpoint
DROP TRIGGER IF EXISTS job_events_append_only ON job_log;
--> statement-breakpoint
DROP TRIGGER IF EXISTS job_events_delete_only_by_retention ON job_log;
--> statement-breakpoint
ALTER TABLE "job_log" ADD COLUMN "max_attempts" integer;
--> statement-breakpoint
UPDATE "job_log" e SET "max_attempts" = j.max_attempts FROM jobs_old j WHERE j.id = e.job_id;
--> statement-breakpoint
DELETE FROM "job_log" WHERE "max_attempts" IS NULL;
--> statement-breakpoint
ALTER TABLE "job_log" ALTER COLUMN "max_attempts" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "job_log" DROP CONSTRAINT "job_events_pkey";
--> statement-breakpoint
ALTER TABLE "job_log" DROP COLUMN "id";
--> statement-breakpoint
ALTER TABLE "job_log" DROP CONSTRAINT "job_events_submit_has_no_from";
--> statement-breakpoint
ALTER TABLE "job_log" ADD CONSTRAINT "job_log_no_submit" CHECK ("event" <> 'submit' AND "from_state" IS NOT NULL AND "actor_kind" <> 'worker');
--> statement-breakpoint
DROP INDEX IF EXISTS "job_events_at_idx";
--> statement-breakpoint
DROP INDEX IF EXISTS "job_events_job_version_cover_idx";
--> statement-breakpoint
-- Partitions follow the table's name: job_log_pYYYYMMDD, job_log_pYYYYMM, job_log_default.
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'public.job_log'::regclass AND c.relname LIKE 'job\_events\_%'
  LOOP
    EXECUTE format('ALTER TABLE %I RENAME TO %I', r.relname, 'job_log_' || substr(r.relname, length('job_events_') + 1));
  END LOOP;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION jobscope_event_partitions()
  RETURNS TABLE (name text, lo timestamptz, hi timestamptz, is_default boolean, estimated_rows bigint)
  LANGUAGE sql STABLE SET search_path = public, pg_temp AS $$
  SELECT c.relname::text, (b.m)[1]::timestamptz, (b.m)[2]::timestamptz, b.expr = 'DEFAULT',
         CASE WHEN c.reltuples < 0 THEN NULL ELSE c.reltuples::bigint END
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS expr) e
    CROSS JOIN LATERAL (SELECT e.expr, regexp_match(e.expr, $re$FROM \('([^']+)'\) TO \('([^']+)'\)$re$) AS m) b
   WHERE i.inhparent = 'public.job_log'::regclass
   ORDER BY 2 NULLS LAST, 1
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION jobscope_ensure_event_partitions(days_ahead int, days_back int DEFAULT 0) RETURNS int
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '5s' AS $$
DECLARE
  today date := (now() AT TIME ZONE 'UTC')::date;
  d date;
  day_lo timestamptz;
  day_hi timestamptz;
  part text;
  prev text;
  created int := 0;
BEGIN
  IF days_ahead IS NULL OR days_ahead < 0 OR days_ahead > 366 OR days_back IS NULL OR days_back < 0 OR days_back > 3660 THEN
    RAISE EXCEPTION 'days_ahead must be 0 to 366 and days_back 0 to 3660 (got %, %)', days_ahead, days_back
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('jobscope_ensure_event_partitions'));
  FOR d IN SELECT g::date FROM generate_series(today - days_back, today + days_ahead, interval '1 day') g LOOP
    day_lo := d::timestamp AT TIME ZONE 'UTC';
    day_hi := (d + 1)::timestamp AT TIME ZONE 'UTC';
    CONTINUE WHEN EXISTS (SELECT 1 FROM jobscope_event_partitions() p WHERE NOT p.is_default AND p.lo < day_hi AND p.hi > day_lo);
    part := 'job_log_p' || to_char(d, 'YYYYMMDD');
    IF EXISTS (SELECT 1 FROM job_log_default WHERE at >= day_lo AND at < day_hi) THEN
      CREATE TEMP TABLE jobscope_moving_events ON COMMIT DROP AS
        SELECT * FROM job_log_default WHERE at >= day_lo AND at < day_hi;
      prev := current_setting('jobscope.retention', true);
      PERFORM set_config('jobscope.retention', 'on', true);
      DELETE FROM job_log_default WHERE at >= day_lo AND at < day_hi;
      PERFORM set_config('jobscope.retention', coalesce(prev, ''), true);
      EXECUTE format('CREATE TABLE %I PARTITION OF job_log FOR VALUES FROM (%L) TO (%L)', part, day_lo, day_hi);
      -- The same rows, moved: under the write path's mark, which the insert guard asks for.
      prev := current_setting('jobscope.write_path', true);
      PERFORM set_config('jobscope.write_path', 'on', true);
      INSERT INTO job_log SELECT * FROM pg_temp.jobscope_moving_events;
      PERFORM set_config('jobscope.write_path', coalesce(prev, ''), true);
      DROP TABLE pg_temp.jobscope_moving_events;
    ELSE
      EXECUTE format('CREATE TABLE %I PARTITION OF job_log FOR VALUES FROM (%L) TO (%L)', part, day_lo, day_hi);
    END IF;
    PERFORM jobscope_prepare_event_partition(part);
    created := created + 1;
  END LOOP;
  RETURN created;
END $$;
--> statement-breakpoint
-- 6. The old tables go (their index names are taken below).
DROP TABLE "job_runs_old";
--> statement-breakpoint
DROP TABLE "jobs_old";
--> statement-breakpoint
DROP FUNCTION IF EXISTS jobs_write_path_guard() CASCADE;
--> statement-breakpoint
-- 7. Indexes (built after the copy). Every entry in an index of jobs_live is paid on every
--    transition of every job, so it has the claim, the lease and the retry-due indexes, and two
--    console indexes whose predicate leaves out the states a worker's claim enters (claimed,
--    running): a claim writes entries only into the primary key and the lease index. The
--    console's other filters live on the catalog (written once), and its finished tabs on the
--    transitions that finished the jobs (partial indexes: an entry only for a finishing one).
CREATE INDEX "job_catalog_created_idx" ON "job_catalog" USING btree ("created_at" DESC NULLS LAST, "id" DESC NULLS LAST);
--> statement-breakpoint
CREATE INDEX "job_catalog_tenant_created_idx" ON "job_catalog" USING btree ("tenant_id", "created_at" DESC NULLS LAST, "id" DESC NULLS LAST);
--> statement-breakpoint
CREATE INDEX "job_catalog_type_created_idx" ON "job_catalog" USING btree ("type", "created_at" DESC NULLS LAST, "id" DESC NULLS LAST);
--> statement-breakpoint
CREATE INDEX "job_catalog_queue_created_idx" ON "job_catalog" USING btree ("queue", "created_at" DESC NULLS LAST, "id" DESC NULLS LAST);
--> statement-breakpoint
CREATE INDEX "job_catalog_tenant_type_created_idx" ON "job_catalog" USING btree ("tenant_id", "type", "created_at" DESC NULLS LAST);
--> statement-breakpoint
CREATE UNIQUE INDEX "job_catalog_idempotency_key_idx" ON "job_catalog" USING btree ("tenant_id", "idempotency_key") WHERE idempotency_key IS NOT NULL;
--> statement-breakpoint
-- A live row needs its catalog row: a replay racing retention's delete of a finished job cannot
-- bring back a job whose catalog row is gone (the check runs at insert; a claim does not change id).
ALTER TABLE "jobs_live" ADD CONSTRAINT "jobs_live_catalog_fk" FOREIGN KEY ("id") REFERENCES "job_catalog"("id");
--> statement-breakpoint
CREATE INDEX "jobs_live_claim_idx" ON "jobs_live" USING btree ("queue", "priority", "not_before", "id") WHERE state = 'queued';
--> statement-breakpoint
CREATE INDEX "jobs_live_lease_idx" ON "jobs_live" USING btree ("lease_owner") WHERE state IN ('claimed', 'running', 'cancelling');
--> statement-breakpoint
CREATE INDEX "jobs_live_retry_due_idx" ON "jobs_live" USING btree ("not_before") WHERE state = 'retry_wait';
--> statement-breakpoint
CREATE INDEX "jobs_live_waiting_idx" ON "jobs_live" USING btree ("state", "created_at" DESC NULLS LAST, "id" DESC NULLS LAST) WHERE state NOT IN ('claimed', 'running');
--> statement-breakpoint
CREATE INDEX "jobs_live_tenant_waiting_idx" ON "jobs_live" USING btree ("tenant_id", "state", "created_at" DESC NULLS LAST, "id" DESC NULLS LAST) WHERE state NOT IN ('claimed', 'running');
--> statement-breakpoint
-- Attempts are written in the order they end: a BRIN on finished_at serves the insight windows
-- for a few bytes per thousand rows, where a btree took an entry on every attempt.
CREATE INDEX "job_attempts_finished_brin" ON "job_attempts" USING brin ("finished_at") WITH (pages_per_range = 16);
--> statement-breakpoint
-- The jobs a worker finished: the console's finished tabs (by state, and by tenant and state).
CREATE INDEX "job_attempts_final_idx" ON "job_attempts" USING btree ("end_to", "finished_at" DESC, "job_id" DESC) WHERE end_to IN ('succeeded', 'dead', 'cancelled');
--> statement-breakpoint
CREATE INDEX "job_attempts_tenant_final_idx" ON "job_attempts" USING btree ("tenant_id", "end_to", "finished_at" DESC, "job_id" DESC) WHERE end_to IN ('succeeded', 'dead', 'cancelled');
--> statement-breakpoint
-- Attempts that did not succeed: by error class (filter, dead-letter groups), by worker (the
-- workers page's link), and lease losses (poison suspects). A successful attempt writes no entry.
CREATE INDEX "job_attempts_error_class_idx" ON "job_attempts" USING btree ("error_class", "job_id") WHERE error_class IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "job_attempts_worker_trouble_idx" ON "job_attempts" USING btree ("worker_id", "finished_at" DESC) WHERE outcome <> 'succeeded';
--> statement-breakpoint
CREATE INDEX "job_attempts_lease_lost_idx" ON "job_attempts" USING btree ("finished_at" DESC, "job_id") WHERE outcome = 'lease_expired';
--> statement-breakpoint
-- job_log: by job and version (a job's history), a BRIN on at (windows; a btree on at put every row
-- of a statement, one now(), on the same right-most leaf page), and the jobs finished by a transition
-- no worker applied (cancelled, given up).
CREATE INDEX "job_log_job_version_idx" ON "job_log" USING btree ("job_id", "state_version");
--> statement-breakpoint
CREATE INDEX "job_log_at_brin" ON "job_log" USING brin ("at");
--> statement-breakpoint
CREATE INDEX "job_log_final_idx" ON "job_log" USING btree ("to_state", "at" DESC, "job_id" DESC) WHERE to_state IN ('succeeded', 'dead', 'cancelled');
--> statement-breakpoint
CREATE INDEX "job_log_tenant_final_idx" ON "job_log" USING btree ("tenant_id", "to_state", "at" DESC, "job_id" DESC) WHERE to_state IN ('succeeded', 'dead', 'cancelled');
--> statement-breakpoint
-- 8. The write path's guard. Only a transaction marked by lib/jobs (set_config('jobscope.write_path',
--    'on', true)) may insert or delete a job's live row or history, or change its state, version,
--    attempts or lease; the heartbeat (heartbeat_at only) needs no mark. The mark is tested in the
--    trigger's WHEN clause, an expression evaluated per row without calling the function, which runs
--    (and raises) only when the mark is missing: the plpgsql call per row of 0001's guard is gone
--    from every write. Row triggers, not statement triggers: a statement's BEFORE STATEMENT triggers
--    fire before its first CTE runs, so the mark a statement sets for itself (markCte,
--    lib/jobs/write.ts) would not be seen yet. The compare-and-set is in the statements, which one
--    builder writes from lib/fsm/table.ts (lib/jobs/write.ts); the integrity audit replays them.
CREATE FUNCTION jobscope_write_path_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% on % only through the write path (lib/jobs)', TG_OP, TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END $$;
--> statement-breakpoint
CREATE TRIGGER jobs_live_write_path BEFORE INSERT OR DELETE ON jobs_live FOR EACH ROW
  WHEN (current_setting('jobscope.write_path', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION jobscope_write_path_guard();
--> statement-breakpoint
CREATE TRIGGER jobs_live_write_path_update
  BEFORE UPDATE OF "state", "state_version", "attempt", "max_attempts", "lease_owner", "run_worker", "run_claimed_at", "run_started_at", "run_version", "id", "tenant_id"
  ON jobs_live FOR EACH ROW
  WHEN (current_setting('jobscope.write_path', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION jobscope_write_path_guard();
--> statement-breakpoint
CREATE TRIGGER job_catalog_write_path BEFORE INSERT ON job_catalog FOR EACH ROW
  WHEN (current_setting('jobscope.write_path', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION jobscope_write_path_guard();
--> statement-breakpoint
CREATE TRIGGER job_attempts_write_path BEFORE INSERT ON job_attempts FOR EACH ROW
  WHEN (current_setting('jobscope.write_path', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION jobscope_write_path_guard();
--> statement-breakpoint
CREATE TRIGGER job_log_write_path BEFORE INSERT ON job_log FOR EACH ROW
  WHEN (current_setting('jobscope.write_path', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION jobscope_write_path_guard();
--> statement-breakpoint
-- History and the catalog are never updated; only retention deletes them (its own mark).
CREATE FUNCTION jobscope_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END $$;
--> statement-breakpoint
CREATE FUNCTION jobscope_retention_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('jobscope.retention', true), '') <> 'on' THEN
    RAISE EXCEPTION '% is append-only (only retention deletes history)', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN OLD; -- a row trigger lets the delete through; a statement trigger's value is ignored
END $$;
--> statement-breakpoint
CREATE TRIGGER job_catalog_append_only BEFORE UPDATE ON job_catalog FOR EACH STATEMENT EXECUTE FUNCTION jobscope_append_only();
--> statement-breakpoint
CREATE TRIGGER job_catalog_delete_only_by_retention BEFORE DELETE ON job_catalog FOR EACH STATEMENT EXECUTE FUNCTION jobscope_retention_guard();
--> statement-breakpoint
CREATE TRIGGER job_attempts_append_only BEFORE UPDATE ON job_attempts FOR EACH STATEMENT EXECUTE FUNCTION jobscope_append_only();
--> statement-breakpoint
CREATE TRIGGER job_attempts_delete_only_by_retention BEFORE DELETE ON job_attempts FOR EACH STATEMENT EXECUTE FUNCTION jobscope_retention_guard();
--> statement-breakpoint
-- job_log's guards are row triggers: a partitioned table's row triggers are cloned to every
-- partition, present and future, so a statement on a partition itself is guarded too (its statement
-- triggers would fire only for statements on the parent). A WHEN clause keeps retention's deletes cheap.
CREATE TRIGGER job_log_append_only BEFORE UPDATE ON job_log FOR EACH ROW EXECUTE FUNCTION jobscope_append_only();
--> statement-breakpoint
CREATE TRIGGER job_log_delete_only_by_retention BEFORE DELETE ON job_log FOR EACH ROW
  WHEN (current_setting('jobscope.retention', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION jobscope_retention_guard();
--> statement-breakpoint
-- 9. The read model.
--    A job's last transition recorded in its history: the closing event of one of its attempts
--    (a worker's) or a job_log row, whichever has the higher version. For a finished job that is
--    the transition that finished it: its state, attempt, budget, version and time. (A live job's
--    latest claim and start are on its live row, not here.)
--    `since` is the job's submit time: no transition is older, so job_log's older day partitions are
--    pruned when the statement runs.
CREATE FUNCTION job_last_transition(job uuid, since timestamptz)
  RETURNS TABLE (state job_state, attempt int, max_attempts int, state_version int, at timestamptz)
  LANGUAGE sql STABLE AS $$
  SELECT * FROM (
    (SELECT a.end_to, a.attempt, a.max_attempts, a.end_version, a.finished_at FROM job_attempts a
      WHERE a.job_id = job AND a.end_version IS NOT NULL ORDER BY a.attempt DESC LIMIT 1)
    UNION ALL
    (SELECT e.to_state, e.attempt, e.max_attempts, e.state_version, e.at FROM job_log e
      WHERE e.job_id = job AND e.at >= since ORDER BY e.state_version DESC LIMIT 1)
  ) t ORDER BY 4 DESC LIMIT 1
$$;
--> statement-breakpoint
CREATE VIEW "jobs" WITH (security_invoker = true) AS
  SELECT c.id, c.tenant_id, c.type, c.queue, c.priority, l.state, l.attempt, l.max_attempts, l.state_version,
         l.lease_owner, l.heartbeat_at, l.not_before, c.params, c.idempotency_key, c.created_at, l.updated_at,
         NULL::timestamptz AS finished_at
    FROM jobs_live l JOIN job_catalog c ON c.id = l.id
  UNION ALL
  SELECT c.id, c.tenant_id, c.type, c.queue, c.priority, f.state, f.attempt, f.max_attempts, f.state_version,
         NULL::text, NULL::timestamptz, c.not_before, c.params, c.idempotency_key, c.created_at, f.at, f.at
    FROM job_catalog c CROSS JOIN LATERAL job_last_transition(c.id, c.created_at) f
   WHERE f.state IN ('succeeded', 'dead', 'cancelled');
--> statement-breakpoint
-- Every transition that finished a job, newest first through the partial indexes on both tables:
-- the console's finished tabs, counts and dead-letter page. `superseded`: an operator replayed the
-- job after it (only a dead job can be replayed), so it is not the job's state any more.
CREATE VIEW "job_finishes" WITH (security_invoker = true) AS
  SELECT a.job_id, a.tenant_id, a.end_to AS state, a.attempt, a.max_attempts, a.end_version AS state_version, a.finished_at,
         'worker'::actor_kind AS actor_kind, a.worker_id AS actor_id, a.end_event AS event,
         a.end_to = 'dead' AND EXISTS (SELECT 1 FROM job_log r WHERE r.job_id = a.job_id AND r.state_version > a.end_version) AS superseded
    FROM job_attempts a WHERE a.end_to IN ('succeeded', 'dead', 'cancelled')
  UNION ALL
  SELECT e.job_id, e.tenant_id, e.to_state, e.attempt, e.max_attempts, e.state_version, e.at, e.actor_kind, e.actor_id, e.event,
         e.to_state = 'dead' AND EXISTS (SELECT 1 FROM job_log r WHERE r.job_id = e.job_id AND r.state_version > e.state_version)
    FROM job_log e WHERE e.to_state IN ('succeeded', 'dead', 'cancelled');
--> statement-breakpoint
CREATE VIEW "job_runs" WITH (security_invoker = true) AS
  SELECT job_id, attempt, tenant_id, worker_id, claimed_at, started_at, finished_at, outcome, error_class, error_message, result
    FROM job_attempts
  UNION ALL
  SELECT id, attempt, tenant_id, run_worker, run_claimed_at, run_started_at, NULL::timestamptz, NULL::run_outcome, NULL::text, NULL::text, NULL::jsonb
    FROM jobs_live WHERE lease_owner IS NOT NULL;
--> statement-breakpoint
-- The claim, start and closing events a worker applied are read back from its attempt. The names
-- of the claim's and start's states are lib/fsm/table.ts's (a test checks them).
CREATE VIEW "job_events" WITH (security_invoker = true) AS
  SELECT c.id AS job_id, c.tenant_id, 'submit'::job_event AS event, NULL::job_state AS from_state, 'queued'::job_state AS to_state,
         c.submitted_by_kind AS actor_kind, c.submitted_by AS actor_id, 0 AS attempt, 0 AS state_version, c.created_at AS at,
         jsonb_build_object('maxAttempts', c.max_attempts) AS payload
    FROM job_catalog c
  UNION ALL
  SELECT job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, payload FROM job_log
  UNION ALL
  SELECT a.job_id, a.tenant_id, w.event, w.from_state, w.to_state, 'worker'::actor_kind, a.worker_id, a.attempt, w.state_version, w.at, w.payload
    FROM job_attempts a
    CROSS JOIN LATERAL (VALUES
      ('claim'::job_event, 'queued'::job_state, 'claimed'::job_state, a.claim_version, a.claimed_at, NULL::jsonb),
      ('start'::job_event, 'claimed'::job_state, 'running'::job_state, CASE WHEN a.started_at IS NOT NULL THEN a.claim_version + 1 END, a.started_at, NULL::jsonb),
      (a.end_event, a.end_from, a.end_to, a.end_version, a.finished_at,
       CASE WHEN a.end_event IS NOT NULL AND (a.error_class IS NOT NULL OR a.retry_at IS NOT NULL) THEN jsonb_strip_nulls(jsonb_build_object(
         'error', CASE WHEN a.error_class IS NOT NULL THEN jsonb_build_object('class', a.error_class, 'message', a.error_message) END,
         'retryAt', to_char(a.retry_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))) END)
    ) AS w(event, from_state, to_state, state_version, at, payload)
   WHERE w.state_version IS NOT NULL
  UNION ALL
  SELECT l.id, l.tenant_id, w.event, w.from_state, w.to_state, 'worker'::actor_kind, l.run_worker, l.attempt, w.state_version, w.at, NULL::jsonb
    FROM jobs_live l
    CROSS JOIN LATERAL (VALUES
      ('claim'::job_event, 'queued'::job_state, 'claimed'::job_state, l.run_version, l.run_claimed_at),
      ('start'::job_event, 'claimed'::job_state, 'running'::job_state, CASE WHEN l.run_started_at IS NOT NULL THEN l.run_version + 1 END, l.run_started_at)
    ) AS w(event, from_state, to_state, state_version, at)
   WHERE l.lease_owner IS NOT NULL AND w.state_version IS NOT NULL;
--> statement-breakpoint
-- 10. Row-level security, as drizzle/0005_identity.sql and 0011_staff_role.sql set it for the old
--     tables; every storage table carries its job's tenant, so the tenant policy is one comparison.
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['job_catalog', 'jobs_live', 'job_attempts'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY owner_all ON %I TO CURRENT_USER USING (true) WITH CHECK (true)', t);
    EXECUTE format('CREATE POLICY worker_all ON %I TO jobscope_worker USING (true) WITH CHECK (true)', t);
    EXECUTE format('CREATE POLICY staff_all ON %I TO jobscope_staff USING (true) WITH CHECK (true)', t);
    EXECUTE format('CREATE POLICY app_scope ON %I TO jobscope_app USING (jobscope_sees_all() OR tenant_id = jobscope_tenant()) WITH CHECK (jobscope_sees_all() OR tenant_id = jobscope_tenant())', t);
    EXECUTE format('REVOKE ALL ON %I FROM PUBLIC', t);
    EXECUTE format('GRANT SELECT, INSERT ON %I TO jobscope_app, jobscope_worker, jobscope_staff', t);
  END LOOP;
END $$;
--> statement-breakpoint
GRANT UPDATE, DELETE ON jobs_live TO jobscope_app, jobscope_worker, jobscope_staff;
--> statement-breakpoint
CREATE POLICY app_scope ON job_log TO jobscope_app
  USING (jobscope_sees_all() OR tenant_id = jobscope_tenant())
  WITH CHECK (jobscope_sees_all() OR tenant_id = jobscope_tenant());
--> statement-breakpoint
GRANT SELECT, INSERT ON job_log TO jobscope_staff;
--> statement-breakpoint
REVOKE ALL ON jobs, job_runs, job_events, job_finishes FROM PUBLIC;
--> statement-breakpoint
GRANT SELECT ON jobs, job_runs, job_events, job_finishes TO jobscope_app, jobscope_worker, jobscope_staff;
--> statement-breakpoint
-- 11. What each worker ran, counted by the worker itself and written with its heartbeat (the
--     workers page): a successful attempt writes no index entry a per-worker count could use.
ALTER TABLE "workers" ADD COLUMN "succeeded" bigint DEFAULT 0 NOT NULL, ADD COLUMN "failed" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- 12. Workers and supervisors reuse one plan per prepared statement: planning the write path's
--     statements costs milliseconds, and a one-job statement's custom plans look cheaper than its
--     generic one, so PostgreSQL re-planned it on every execution (lib/db/client.ts, `genericPlans`).
ALTER ROLE jobscope_worker SET plan_cache_mode = 'force_generic_plan';

-- 0009_partition_events: job_events becomes a table PARTITIONED BY RANGE (at), one
-- partition per UTC day (job_events_pYYYYMMDD), past months of existing data one partition
-- per month (job_events_pYYYYMM), and a DEFAULT partition for anything outside. Retention
-- (lib/retention) drops a day whose jobs are all gone instead of deleting its rows one by one.
-- See docs/decisions.md, "job_log is partitioned by day" (0012 renamed this table job_log), and
-- docs/operations.md, "Retention".
--
-- 1. Set the old table aside, without the names the new one takes.
ALTER TABLE "job_events" RENAME TO "job_events_old";
--> statement-breakpoint
ALTER TABLE "job_events_old" DROP CONSTRAINT "job_events_pkey", DROP CONSTRAINT "job_events_one_per_version",
  DROP CONSTRAINT "job_events_submit_has_no_from";
--> statement-breakpoint
DROP INDEX IF EXISTS "job_events_at_idx";
--> statement-breakpoint
DROP INDEX IF EXISTS "job_events_job_version_cover_idx";
--> statement-breakpoint
-- The identity's sequence goes with it; the new table's continues from the old maximum (step 4).
ALTER TABLE "job_events_old" ALTER COLUMN "id" DROP IDENTITY;
--> statement-breakpoint
-- 2. The partitioned table: same columns, defaults and check. A primary key or unique
--    constraint on a partitioned table must contain the partition key: the key is (id, at),
--    and id stays unique through its sequence. (job_id, state_version) is no longer a
--    constraint: one event per version is the write path's compare-and-set on jobs.state_version,
--    checked by the integrity audit (docs/decisions.md).
CREATE TABLE "job_events" (
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "job_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"job_id" uuid NOT NULL,
	"tenant_id" text NOT NULL,
	"event" "job_event" NOT NULL,
	"from_state" "job_state",
	"to_state" "job_state" NOT NULL,
	"actor_kind" "actor_kind" NOT NULL,
	"actor_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"state_version" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"payload" jsonb,
	CONSTRAINT "job_events_pkey" PRIMARY KEY ("id", "at"),
	CONSTRAINT "job_events_submit_has_no_from" CHECK (("from_state" IS NULL) = ("event" = 'submit'))
) PARTITION BY RANGE ("at");
--> statement-breakpoint
CREATE TABLE "job_events_default" PARTITION OF "job_events" DEFAULT;
--> statement-breakpoint
-- 3. The partitions, as the table's owner sees them: bounds parsed from the catalog.
CREATE FUNCTION jobscope_event_partitions()
  RETURNS TABLE (name text, lo timestamptz, hi timestamptz, is_default boolean, estimated_rows bigint)
  LANGUAGE sql STABLE SET search_path = public, pg_temp AS $$
  SELECT c.relname::text, (b.m)[1]::timestamptz, (b.m)[2]::timestamptz, b.expr = 'DEFAULT',
         CASE WHEN c.reltuples < 0 THEN NULL ELSE c.reltuples::bigint END
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS expr) e
    CROSS JOIN LATERAL (SELECT e.expr, regexp_match(e.expr, $re$FROM \('([^']+)'\) TO \('([^']+)'\)$re$) AS m) b
   WHERE i.inhparent = 'public.job_events'::regclass
   ORDER BY 2 NULLS LAST, 1
$$;
--> statement-breakpoint
-- A new partition is the owner's; the runtime roles reach its rows only through the parent
-- (its grants and its row-level security), never directly, and cannot drop it.
CREATE FUNCTION jobscope_prepare_event_partition(part text) RETURNS void
  LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
BEGIN
  EXECUTE format('ALTER TABLE %I SET (autovacuum_vacuum_insert_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.05)', part);
  EXECUTE format('REVOKE ALL ON %I FROM PUBLIC, jobscope_app, jobscope_worker', part);
END $$;
--> statement-breakpoint
SELECT jobscope_prepare_event_partition('job_events_default');
--> statement-breakpoint
-- Create the daily partitions from (UTC) today - days_back to today + days_ahead that are
-- missing (a day some partition already covers, e.g. a month, is skipped). Rows of such a
-- day already in DEFAULT are moved into the new partition. Returns how many it created.
-- SECURITY DEFINER: the supervisor (role jobscope_worker) keeps future days created without
-- owning anything. lock_timeout: creating a partition briefly locks job_events; rather fail
-- (and retry on the next call, days ahead) than queue every writer behind a long reader.
CREATE FUNCTION jobscope_ensure_event_partitions(days_ahead int, days_back int DEFAULT 0) RETURNS int
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
  -- Two callers at once (two supervisors) would both try to create the same day.
  PERFORM pg_advisory_xact_lock(hashtext('jobscope_ensure_event_partitions'));
  FOR d IN SELECT g::date FROM generate_series(today - days_back, today + days_ahead, interval '1 day') g LOOP
    day_lo := d::timestamp AT TIME ZONE 'UTC';
    day_hi := (d + 1)::timestamp AT TIME ZONE 'UTC';
    CONTINUE WHEN EXISTS (SELECT 1 FROM jobscope_event_partitions() p WHERE NOT p.is_default AND p.lo < day_hi AND p.hi > day_lo);
    part := 'job_events_p' || to_char(d, 'YYYYMMDD');
    IF EXISTS (SELECT 1 FROM job_events_default WHERE at >= day_lo AND at < day_hi) THEN
      CREATE TEMP TABLE jobscope_moving_events ON COMMIT DROP AS
        SELECT * FROM job_events_default WHERE at >= day_lo AND at < day_hi;
      prev := current_setting('jobscope.retention', true);
      PERFORM set_config('jobscope.retention', 'on', true);
      DELETE FROM job_events_default WHERE at >= day_lo AND at < day_hi;
      PERFORM set_config('jobscope.retention', coalesce(prev, ''), true);
      EXECUTE format('CREATE TABLE %I PARTITION OF job_events FOR VALUES FROM (%L) TO (%L)', part, day_lo, day_hi);
      INSERT INTO job_events OVERRIDING SYSTEM VALUE SELECT * FROM pg_temp.jobscope_moving_events;
      DROP TABLE pg_temp.jobscope_moving_events;
    ELSE
      EXECUTE format('CREATE TABLE %I PARTITION OF job_events FOR VALUES FROM (%L) TO (%L)', part, day_lo, day_hi);
    END IF;
    PERFORM jobscope_prepare_event_partition(part);
    created := created + 1;
  END LOOP;
  RETURN created;
END $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION jobscope_ensure_event_partitions(int, int) FROM PUBLIC;
--> statement-breakpoint
REVOKE ALL ON FUNCTION jobscope_prepare_event_partition(text) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION jobscope_ensure_event_partitions(int, int) TO jobscope_worker;
--> statement-breakpoint
-- 4. Partitions for the existing rows: one per past month (at most ten years back; older rows
--    land in DEFAULT), then days from the first of this month to a week ahead. Then move them.
DO $$
DECLARE
  cur date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
  m date;
BEGIN
  SELECT date_trunc('month', min(at) AT TIME ZONE 'UTC')::date INTO m FROM job_events_old;
  IF m IS NOT NULL THEN m := greatest(m, (cur - interval '10 years')::date); END IF;
  WHILE m IS NOT NULL AND m < cur LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF job_events FOR VALUES FROM (%L) TO (%L)',
      'job_events_p' || to_char(m, 'YYYYMM'), m::timestamp AT TIME ZONE 'UTC', (m + interval '1 month')::timestamp AT TIME ZONE 'UTC');
    PERFORM jobscope_prepare_event_partition('job_events_p' || to_char(m, 'YYYYMM'));
    m := (m + interval '1 month')::date;
  END LOOP;
  PERFORM jobscope_ensure_event_partitions(7, (now() AT TIME ZONE 'UTC')::date - cur);
END $$;
--> statement-breakpoint
INSERT INTO "job_events" OVERRIDING SYSTEM VALUE
  SELECT "id", "job_id", "tenant_id", "event", "from_state", "to_state", "actor_kind", "actor_id", "attempt", "state_version", "at", "payload"
    FROM "job_events_old";
--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('job_events', 'id'), coalesce((SELECT max("id") FROM "job_events"), 0) + 1, false);
--> statement-breakpoint
DROP TABLE "job_events_old";
--> statement-breakpoint
-- 5. Indexes on the parent (each partition gets its own): by time for the insight charts and
--    the integrity audit's window; by job and version for the timeline and latency sample.
CREATE INDEX "job_events_at_idx" ON "job_events" USING btree ("at" DESC NULLS LAST);
--> statement-breakpoint
CREATE INDEX "job_events_job_version_cover_idx" ON "job_events" USING btree ("job_id", "state_version" DESC) INCLUDE ("to_state", "at");
--> statement-breakpoint
-- 6. The guards, on the parent (cloned to every partition, present and future): no UPDATE,
--    DELETE only in a transaction marked by retention (drizzle/0007_scale.sql).
CREATE TRIGGER job_events_append_only BEFORE UPDATE ON job_events
  FOR EACH ROW EXECUTE FUNCTION append_only_guard();
--> statement-breakpoint
CREATE TRIGGER job_events_delete_only_by_retention BEFORE DELETE ON job_events
  FOR EACH ROW EXECUTE FUNCTION history_delete_guard();
--> statement-breakpoint
-- 7. Row-level security and grants exactly as drizzle/0005_identity.sql set them.
ALTER TABLE job_events ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE job_events FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY owner_all ON job_events TO CURRENT_USER USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY worker_all ON job_events TO jobscope_worker USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY app_scope ON job_events TO jobscope_app
  USING (jobscope_sees_all() OR EXISTS (SELECT 1 FROM jobs j WHERE j.id = job_events.job_id))
  WITH CHECK (jobscope_sees_all() OR EXISTS (SELECT 1 FROM jobs j WHERE j.id = job_events.job_id));
--> statement-breakpoint
REVOKE ALL ON job_events FROM PUBLIC, jobscope_app, jobscope_worker;
--> statement-breakpoint
GRANT SELECT, INSERT ON job_events TO jobscope_app, jobscope_worker;
--> statement-breakpoint
GRANT USAGE, SELECT ON SEQUENCE job_events_id_seq TO jobscope_app, jobscope_worker;

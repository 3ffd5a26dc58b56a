-- 0011_staff_role: staff requests read under a role whose policies are constant `true`.
--
-- Under row-level security PostgreSQL applies a query's own conditions only after the
-- policy's, unless their functions are LEAKPROOF — and enum equality (`state = 'dead'`)
-- is not. So with the `jobscope_sees_all() OR tenant_id = …` policy of 0005, no index could
-- use `state`: the tab counts walked every job (measured: 420 ms at 100k jobs, mostly
-- rows removed by the filter). A policy that is the constant `true` is folded away by the
-- planner, and the query's conditions become index conditions again.
--
-- jobscope_staff cannot log in. The console's role (jobscope_app) may SET ROLE to it but
-- does not inherit it (INHERIT FALSE): the staff policies never apply to jobscope_app, whose
-- tenant-scoped transactions keep the policies of 0005. lib/db/scope.ts switches role, for the
-- transaction only, when a request is staff-scoped — the same trust as setting
-- jobscope.scope = 'all', which the console could always do.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'jobscope_staff') THEN
    CREATE ROLE jobscope_staff NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
  END IF;
END $$;
--> statement-breakpoint
-- PostgreSQL 16 grants membership without inheritance per grant. PostgreSQL 15 has no such
-- option: there jobscope_app itself is NOINHERIT (it is a member of no other role), which gives
-- the same result — it may SET ROLE jobscope_staff, and never has its privileges or policies
-- otherwise. (This block replaced a plain GRANT … WITH INHERIT FALSE, SET TRUE, a syntax error on
-- 15; databases that applied the old text are in the same state.)
DO $$
BEGIN
  IF current_setting('server_version_num')::int >= 160000 THEN
    EXECUTE 'GRANT jobscope_staff TO jobscope_app WITH INHERIT FALSE, SET TRUE';
  ELSE
    EXECUTE 'ALTER ROLE jobscope_app NOINHERIT';
    EXECUTE 'GRANT jobscope_staff TO jobscope_app';
  END IF;
END $$;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO jobscope_staff;
--> statement-breakpoint
-- Exactly the console's table privileges (job_events partitions and job_archive stay out of reach).
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT table_name, string_agg(privilege_type, ', ') AS privs
             FROM information_schema.role_table_grants
            WHERE grantee = 'jobscope_app' AND table_schema = 'public'
            GROUP BY table_name
  LOOP
    EXECUTE format('GRANT %s ON %I TO jobscope_staff', r.privs, r.table_name);
  END LOOP;
END $$;
--> statement-breakpoint
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO jobscope_staff;
--> statement-breakpoint
-- No default privileges: the job_events partitions created later stay out of the staff role's
-- reach like the others'; a later migration grants jobscope_staff what it grants jobscope_app.
CREATE POLICY staff_all ON jobs TO jobscope_staff USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY staff_all ON job_runs TO jobscope_staff USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY staff_all ON job_events TO jobscope_staff USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY staff_all ON transition_rejections TO jobscope_staff USING (true) WITH CHECK (true);

-- 0023: a history row's tenant is its job's. The write path copies the tenant from
-- the job's live row or catalog row; these checks refuse any other insert that carries another tenant
-- (a role that marks its transaction as the write path and inserts by hand). One check per statement,
-- over the rows it inserted (a transition table), each looked up by the catalog's primary key.
CREATE FUNCTION jobscope_history_tenant_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE bad uuid;
BEGIN
  IF TG_TABLE_NAME = 'jobs_live' THEN
    SELECT n.id INTO bad FROM new_rows n JOIN job_catalog c ON c.id = n.id WHERE c.tenant_id <> n.tenant_id LIMIT 1;
  ELSE
    SELECT n.job_id INTO bad FROM new_rows n JOIN job_catalog c ON c.id = n.job_id WHERE c.tenant_id <> n.tenant_id LIMIT 1;
  END IF;
  IF bad IS NOT NULL THEN
    RAISE EXCEPTION 'a % row of job % names another tenant than the job''s', TG_TABLE_NAME, bad USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER job_attempts_tenant_check AFTER INSERT ON job_attempts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION jobscope_history_tenant_check();
--> statement-breakpoint
CREATE TRIGGER job_log_tenant_check AFTER INSERT ON job_log REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION jobscope_history_tenant_check();
--> statement-breakpoint
CREATE TRIGGER jobs_live_tenant_check AFTER INSERT ON jobs_live REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION jobscope_history_tenant_check();

-- 0015: row-level security beyond the job tables, and a narrower console role.
--
-- audit_log: the console role may append (a tenant-scoped transaction only rows of its own tenant
-- or of none) and never reads it; staff transactions (jobscope_staff) read and append. api_keys: a
-- tenant scope sees and manages its own tenant's keys, staff every key, an unscoped transaction
-- none; a request with a key finds it through jobscope_use_api_key(), a SECURITY DEFINER function
-- that returns only the live key whose hash was given. integrity_audits: staff only.
-- bulk_operations / bulk_operation_items get none here: the bulk runner writes them outside any
-- scope (0021 moves it onto the engine, under the worker role).
ALTER TABLE audit_log ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE audit_log FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY owner_all ON audit_log TO CURRENT_USER USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY staff_all ON audit_log TO jobscope_staff USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY app_append ON audit_log FOR INSERT TO jobscope_app
  WITH CHECK (jobscope_tenant() IS NULL OR tenant_id IS NULL OR tenant_id = jobscope_tenant());
--> statement-breakpoint
ALTER TABLE api_keys ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE api_keys FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY owner_all ON api_keys TO CURRENT_USER USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY staff_all ON api_keys TO jobscope_staff USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY app_scope ON api_keys TO jobscope_app
  USING (jobscope_sees_all() OR tenant_id = jobscope_tenant())
  WITH CHECK (jobscope_sees_all() OR tenant_id = jobscope_tenant());
--> statement-breakpoint
ALTER TABLE integrity_audits ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE integrity_audits FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY owner_all ON integrity_audits TO CURRENT_USER USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY staff_all ON integrity_audits TO jobscope_staff USING (true) WITH CHECK (true);
--> statement-breakpoint
-- The key lookup of every API request, before its tenant is known: only the live key with this
-- hash, of a tenant that is not suspended; `last_used_at` written at most once per `every`.
CREATE FUNCTION jobscope_use_api_key(key_hash text, used_at timestamptz, every interval)
  RETURNS TABLE (id uuid, tenant_id text, prefix text)
  LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  WITH found AS (
    SELECT k.id, k.tenant_id, k.prefix, k.last_used_at FROM api_keys k
      JOIN tenants t ON t.id = k.tenant_id AND t.suspended_at IS NULL
     WHERE k.hash = key_hash AND k.revoked_at IS NULL
  ), touched AS (
    UPDATE api_keys k SET last_used_at = used_at FROM found f
     WHERE k.id = f.id AND (f.last_used_at IS NULL OR f.last_used_at <= used_at - every)
  )
  SELECT id, tenant_id, prefix FROM found
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION jobscope_use_api_key(text, timestamptz, interval) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION jobscope_use_api_key(text, timestamptz, interval) TO jobscope_app;
--> statement-breakpoint
-- users: the console role's own transactions (better-auth's sessions and profile updates among
-- them) may change a user's name, email and profile fields, not who they are: role, tenant,
-- tenant ownership and deactivation change only in a staff transaction (the admin page's actions,
-- which switch to jobscope_staff), and users are created and deleted only there too.
REVOKE INSERT, UPDATE, DELETE ON users FROM jobscope_app;
--> statement-breakpoint
GRANT UPDATE (name, email, email_verified, image, updated_at) ON users TO jobscope_app;
--> statement-breakpoint
GRANT INSERT, UPDATE, DELETE ON users TO jobscope_staff;

-- Identity: better-auth's tables with a role and a tenant per user, the audit log, API keys,
-- and tenant isolation enforced by PostgreSQL itself (row-level security), independently of
-- the application's own tenant filters. See docs/decisions.md, "Two database roles, and tenant
-- isolation in PostgreSQL itself".
CREATE TABLE "users" (
  "id" text PRIMARY KEY NOT NULL,
  "name" text NOT NULL,
  "email" text NOT NULL UNIQUE,
  "email_verified" boolean DEFAULT false NOT NULL,
  "image" text,
  "role" text DEFAULT 'tenant' NOT NULL,
  "tenant_id" text REFERENCES "tenants"("id"),
  "tenant_owner" boolean DEFAULT false NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT "users_role_known" CHECK ("role" IN ('tenant', 'support', 'operator', 'admin')),
  CONSTRAINT "users_tenant_iff_member" CHECK (("role" = 'tenant') = ("tenant_id" IS NOT NULL))
);
--> statement-breakpoint
CREATE TABLE "sessions" (
  "id" text PRIMARY KEY NOT NULL,
  "expires_at" timestamp with time zone NOT NULL,
  "token" text NOT NULL UNIQUE,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL,
  "ip_address" text,
  "user_agent" text,
  "user_id" text NOT NULL REFERENCES "users"("id") ON DELETE CASCADE
);
--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" ("user_id");
--> statement-breakpoint
CREATE TABLE "accounts" (
  "id" text PRIMARY KEY NOT NULL,
  "account_id" text NOT NULL,
  "provider_id" text NOT NULL,
  "user_id" text NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "access_token" text,
  "refresh_token" text,
  "id_token" text,
  "access_token_expires_at" timestamp with time zone,
  "refresh_token_expires_at" timestamp with time zone,
  "scope" text,
  "password" text,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "accounts_user_idx" ON "accounts" ("user_id");
--> statement-breakpoint
CREATE TABLE "verifications" (
  "id" text PRIMARY KEY NOT NULL,
  "identifier" text NOT NULL,
  "value" text NOT NULL,
  "expires_at" timestamp with time zone NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
  "id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
  "at" timestamp with time zone DEFAULT now() NOT NULL,
  "user_id" text,
  "actor" text NOT NULL,
  "role" text,
  "tenant_id" text,
  "via" text NOT NULL,
  "action" text NOT NULL,
  "job_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
  "outcome" text NOT NULL,
  "reason" text,
  CONSTRAINT "audit_log_outcome_known" CHECK ("outcome" IN ('applied', 'refused', 'denied', 'invalid', 'error')),
  CONSTRAINT "audit_log_via_known" CHECK ("via" IN ('console', 'api'))
);
--> statement-breakpoint
CREATE INDEX "audit_log_at_idx" ON "audit_log" ("at");
--> statement-breakpoint
CREATE INDEX "audit_log_actor_idx" ON "audit_log" ("actor", "id" DESC);
--> statement-breakpoint
CREATE INDEX "audit_log_action_idx" ON "audit_log" ("action", "id" DESC);
--> statement-breakpoint
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION append_only_guard();
--> statement-breakpoint
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION append_only_guard();
--> statement-breakpoint
CREATE TABLE "api_keys" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "tenant_id" text NOT NULL REFERENCES "tenants"("id"),
  "name" text NOT NULL,
  "prefix" text NOT NULL,
  "hash" text NOT NULL UNIQUE,
  "created_by" text NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "last_used_at" timestamp with time zone,
  "revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "api_keys_tenant_idx" ON "api_keys" ("tenant_id", "created_at" DESC);
--> statement-breakpoint
-- Runtime roles. Roles are cluster-wide: create them once; logins and passwords are
-- provisioned at start-up (lib/db/roles.ts), never stored in a migration.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'jobscope_app') THEN
    CREATE ROLE jobscope_app NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'jobscope_worker') THEN
    CREATE ROLE jobscope_worker NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
  END IF;
END $$;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO jobscope_app, jobscope_worker;
--> statement-breakpoint
-- The console (web process): reads everything its scope allows, writes through the write path,
-- appends to the audit log, manages users, sessions, tenants and API keys. Never DELETE on job data.
GRANT SELECT, INSERT, UPDATE ON jobs, job_runs TO jobscope_app;
--> statement-breakpoint
GRANT SELECT, INSERT ON job_events, transition_rejections, audit_log TO jobscope_app;
--> statement-breakpoint
GRANT SELECT ON workers TO jobscope_app;
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE ON tenants, bulk_operations, bulk_operation_items, api_keys TO jobscope_app;
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON users, sessions, accounts, verifications TO jobscope_app;
--> statement-breakpoint
-- Workers and the supervisor: the job tables and their own registry; no identity, no audit, no keys.
GRANT SELECT, INSERT, UPDATE ON jobs, job_runs, workers TO jobscope_worker;
--> statement-breakpoint
GRANT SELECT, INSERT ON job_events, transition_rejections TO jobscope_worker;
--> statement-breakpoint
GRANT SELECT ON tenants TO jobscope_worker;
--> statement-breakpoint
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO jobscope_app, jobscope_worker;
--> statement-breakpoint
-- Tables created by later migrations are readable by both roles; writes are granted explicitly.
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO jobscope_app, jobscope_worker;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO jobscope_app, jobscope_worker;
--> statement-breakpoint
-- Row-level security. A console transaction says what it may see with transaction-local settings
-- (lib/db/scope.ts): jobscope.scope = 'all' for staff, or jobscope.tenant = <tenant id>.
-- Neither set: no rows. FORCE applies the policies to the table owner too (not to superusers).
CREATE FUNCTION jobscope_sees_all() RETURNS boolean LANGUAGE sql STABLE AS
  $$ SELECT coalesce(current_setting('jobscope.scope', true), '') = 'all' $$;
--> statement-breakpoint
CREATE FUNCTION jobscope_tenant() RETURNS text LANGUAGE sql STABLE AS
  $$ SELECT nullif(current_setting('jobscope.tenant', true), '') $$;
--> statement-breakpoint
ALTER TABLE jobs ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE jobs FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE job_runs ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE job_runs FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE job_events ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE job_events FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE transition_rejections ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE transition_rejections FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
-- The migrating owner (seeding, maintenance) and the worker role see every row.
CREATE POLICY owner_all ON jobs TO CURRENT_USER USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY owner_all ON job_runs TO CURRENT_USER USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY owner_all ON job_events TO CURRENT_USER USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY owner_all ON transition_rejections TO CURRENT_USER USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY worker_all ON jobs TO jobscope_worker USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY worker_all ON job_runs TO jobscope_worker USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY worker_all ON job_events TO jobscope_worker USING (true) WITH CHECK (true);
--> statement-breakpoint
CREATE POLICY worker_all ON transition_rejections TO jobscope_worker USING (true) WITH CHECK (true);
--> statement-breakpoint
-- The console: staff scope sees every tenant; a tenant scope sees its tenant's jobs, and the runs
-- and events of the jobs it can see (the subquery on jobs is itself subject to jobs' policy).
CREATE POLICY app_scope ON jobs TO jobscope_app
  USING (jobscope_sees_all() OR tenant_id = jobscope_tenant())
  WITH CHECK (jobscope_sees_all() OR tenant_id = jobscope_tenant());
--> statement-breakpoint
CREATE POLICY app_scope ON job_runs TO jobscope_app
  USING (jobscope_sees_all() OR EXISTS (SELECT 1 FROM jobs j WHERE j.id = job_runs.job_id))
  WITH CHECK (jobscope_sees_all() OR EXISTS (SELECT 1 FROM jobs j WHERE j.id = job_runs.job_id));
--> statement-breakpoint
CREATE POLICY app_scope ON job_events TO jobscope_app
  USING (jobscope_sees_all() OR EXISTS (SELECT 1 FROM jobs j WHERE j.id = job_events.job_id))
  WITH CHECK (jobscope_sees_all() OR EXISTS (SELECT 1 FROM jobs j WHERE j.id = job_events.job_id));
--> statement-breakpoint
-- A refusal a tenant causes on a job it cannot see (not found) is recorded without a tenant:
-- staff see the probe; the tenant never sees the row.
CREATE POLICY app_read ON transition_rejections FOR SELECT TO jobscope_app
  USING (jobscope_sees_all() OR tenant_id = jobscope_tenant());
--> statement-breakpoint
CREATE POLICY app_insert ON transition_rejections FOR INSERT TO jobscope_app
  WITH CHECK (jobscope_sees_all() OR tenant_id = jobscope_tenant() OR tenant_id IS NULL);

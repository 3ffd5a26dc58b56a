-- 0014: offboarding. A deactivated user cannot sign in and has no sessions; a suspended
-- tenant's members cannot sign in and its API keys are refused. Nothing is deleted: the rows, the
-- tenant's jobs and the audit trail stay, readable to staff, and either can be undone.
ALTER TABLE "users" ADD COLUMN "deactivated_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "suspended_at" timestamp with time zone;

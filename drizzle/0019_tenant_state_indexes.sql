-- 0019: a tenant's console tabs read one index per state. Under the tenant policy the planner
-- cannot use `state = 'dead'` as an index condition (enum equality is not leakproof), so a tenant's dead
-- count walked its succeeded finishes first (0.7–1 s at 10M jobs); an index whose predicate is the state
-- is chosen from the query's constant. Each row still takes at most one entry among them, as it did in
-- the index each set replaces (docs/benchmarks.md, "Console reads at 10M jobs").
DROP INDEX IF EXISTS "jobs_live_tenant_waiting_idx";
--> statement-breakpoint
DROP INDEX IF EXISTS "job_attempts_tenant_final_idx";
--> statement-breakpoint
DROP INDEX IF EXISTS "job_log_tenant_final_idx";
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "jobs_live_tenant_queued_idx" ON "jobs_live" USING btree ("tenant_id", "state", "created_at" DESC NULLS LAST, "id" DESC NULLS LAST) WHERE state = 'queued';
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "jobs_live_tenant_paused_idx" ON "jobs_live" USING btree ("tenant_id", "state", "created_at" DESC NULLS LAST, "id" DESC NULLS LAST) WHERE state = 'paused';
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "jobs_live_tenant_cancelling_idx" ON "jobs_live" USING btree ("tenant_id", "state", "created_at" DESC NULLS LAST, "id" DESC NULLS LAST) WHERE state = 'cancelling';
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "jobs_live_tenant_retry_wait_idx" ON "jobs_live" USING btree ("tenant_id", "state", "created_at" DESC NULLS LAST, "id" DESC NULLS LAST) WHERE state = 'retry_wait';
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "job_attempts_tenant_succeeded_idx" ON "job_attempts" USING btree ("tenant_id", "end_to", "finished_at" DESC, "job_id" DESC) WHERE end_to = 'succeeded';
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "job_attempts_tenant_dead_idx" ON "job_attempts" USING btree ("tenant_id", "end_to", "finished_at" DESC, "job_id" DESC) WHERE end_to = 'dead';
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "job_attempts_tenant_cancelled_idx" ON "job_attempts" USING btree ("tenant_id", "end_to", "finished_at" DESC, "job_id" DESC) WHERE end_to = 'cancelled';
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "job_log_tenant_succeeded_idx" ON "job_log" USING btree ("tenant_id", "to_state", "at" DESC, "job_id" DESC) WHERE to_state = 'succeeded';
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "job_log_tenant_dead_idx" ON "job_log" USING btree ("tenant_id", "to_state", "at" DESC, "job_id" DESC) WHERE to_state = 'dead';
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "job_log_tenant_cancelled_idx" ON "job_log" USING btree ("tenant_id", "to_state", "at" DESC, "job_id" DESC) WHERE to_state = 'cancelled';

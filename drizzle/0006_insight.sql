-- 0006_insight: indexes for the insight pages. Each serves one query in lib/insight/*.ts;
-- bench/insight-explain.ts prints their plans (docs/insight.md). Hand-written; statements separated by statement-breakpoint markers.
-- Poison suspects: only the attempts whose lease expired (rare), by when, and by job for the jobs-list filter.
CREATE INDEX IF NOT EXISTS "job_runs_lease_lost_idx" ON "job_runs" USING btree ("finished_at" DESC, "job_id") WHERE outcome = 'lease_expired';--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "job_runs_lease_lost_job_idx" ON "job_runs" USING btree ("job_id") WHERE outcome = 'lease_expired';--> statement-breakpoint
-- "Why was this slow": the same tenant's recent jobs of the same type.
CREATE INDEX IF NOT EXISTS "jobs_tenant_type_created_idx" ON "jobs" USING btree ("tenant_id", "type", "created_at" DESC NULLS LAST);--> statement-breakpoint
-- Workers page: workers seen recently.
CREATE INDEX IF NOT EXISTS "workers_last_seen_idx" ON "workers" USING btree ("last_seen_at" DESC);--> statement-breakpoint
-- Rejections page: newest first (by id) under each filter.
CREATE INDEX IF NOT EXISTS "transition_rejections_kind_id_idx" ON "transition_rejections" USING btree ("kind", "id" DESC);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "transition_rejections_event_id_idx" ON "transition_rejections" USING btree ("event", "id" DESC);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "transition_rejections_actor_id_idx" ON "transition_rejections" USING btree ("actor_id", "id" DESC);
--> statement-breakpoint
-- Overview charts: ended attempts of a window, read from the index alone (throughput by outcome, error classes).
CREATE INDEX IF NOT EXISTS "job_runs_finished_cover_idx" ON "job_runs" USING btree ("finished_at") INCLUDE ("outcome", "error_class", "job_id") WHERE finished_at IS NOT NULL;--> statement-breakpoint
-- The moment a job last became claimable before a claim, per attempt in the latency sample: index only.
CREATE INDEX IF NOT EXISTS "job_events_job_version_cover_idx" ON "job_events" USING btree ("job_id", "state_version" DESC) INCLUDE ("to_state", "at");

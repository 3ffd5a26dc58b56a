CREATE INDEX "job_runs_error_class_idx" ON "job_runs" USING btree ("error_class","job_id") WHERE error_class IS NOT NULL;--> statement-breakpoint
CREATE INDEX "jobs_queue_created_idx" ON "jobs" USING btree ("queue","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "jobs_tenant_state_idx" ON "jobs" USING btree ("tenant_id","state");
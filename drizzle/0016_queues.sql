-- 0016_queues: queues an operator can pause, cap and make fair between tenants, enforced
-- in the claim statement (lib/jobs/claim.ts). A queue exists as soon as a job names it; its row here
-- holds its settings once an operator sets one.
CREATE TABLE "queues" (
	"name" text PRIMARY KEY NOT NULL,
	"paused" boolean DEFAULT false NOT NULL,
	-- At most this many of the queue's jobs leased at once, across every worker and host; null: no cap.
	"concurrency_limit" integer,
	-- The queue's leased jobs (claimed, running, paused, cancelling), kept by the write path while the
	-- queue has a cap: the claim reads it under the queue row's lock, so two workers cannot both take
	-- the last slot.
	"leased" integer DEFAULT 0 NOT NULL,
	-- Claim in turn between tenants (a tenant's burst waits behind the others' jobs, not in front).
	"fair" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text,
	CONSTRAINT "queues_name_valid" CHECK (length("name") BETWEEN 1 AND 100),
	CONSTRAINT "queues_limit_positive" CHECK ("concurrency_limit" IS NULL OR "concurrency_limit" >= 1),
	CONSTRAINT "queues_leased_nonnegative" CHECK ("leased" >= 0)
);
--> statement-breakpoint
-- Every change of a queue's settings, with who and when: the console's history, and "why was this
-- slow" (a job that waited while its queue was paused).
CREATE TABLE "queue_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
	"queue" text NOT NULL,
	"event" text NOT NULL,
	"value" integer,
	"actor_kind" "actor_kind" NOT NULL,
	"actor_id" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "queue_events_event_known" CHECK ("event" IN ('pause', 'resume', 'limit', 'unlimit', 'fair', 'unfair'))
);
--> statement-breakpoint
CREATE INDEX "queue_events_queue_at_idx" ON "queue_events" USING btree ("queue", "at");
--> statement-breakpoint
-- Fairness between tenants: each job of a fair queue gets a tag at submit, after its tenant's last
-- queued job and no earlier than the queue's head, and the claim takes jobs in tag order (within a
-- priority). A tenant's burst of 10,000 then interleaves with another tenant's single job instead
-- of standing in front of it. 0 on queues that are not fair: their order is unchanged.
ALTER TABLE "jobs_live" ADD COLUMN "fair_tag" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
DROP INDEX "jobs_live_claim_idx";
--> statement-breakpoint
CREATE INDEX "jobs_live_claim_idx" ON "jobs_live" USING btree ("queue", "priority", "fair_tag", "not_before", "id") WHERE state = 'queued';
--> statement-breakpoint
-- A fair queue's head and each tenant's last tag, read at submit (entries only for fair queues' jobs).
CREATE INDEX "jobs_live_fair_head_idx" ON "jobs_live" USING btree ("queue", "fair_tag") WHERE state = 'queued' AND fair_tag > 0;
--> statement-breakpoint
CREATE INDEX "jobs_live_fair_tenant_idx" ON "jobs_live" USING btree ("queue", "tenant_id", "fair_tag") WHERE state = 'queued' AND fair_tag > 0;
--> statement-breakpoint
-- The lease index keyed by queue first: the supervisor still reads it whole, and a queue's leased
-- jobs are one range of it (the count a cap starts from). The queue never changes, so a heartbeat
-- stays a HOT update.
DROP INDEX "jobs_live_lease_idx";
--> statement-breakpoint
CREATE INDEX "jobs_live_lease_idx" ON "jobs_live" USING btree ("queue", "lease_owner") WHERE state IN ('claimed', 'running', 'cancelling');
--> statement-breakpoint
-- The console sets queue settings; workers read them (and keep `leased`).
GRANT SELECT, INSERT, UPDATE ON "queues" TO jobscope_app, jobscope_worker, jobscope_staff;
--> statement-breakpoint
GRANT SELECT, INSERT ON "queue_events" TO jobscope_app, jobscope_worker, jobscope_staff;

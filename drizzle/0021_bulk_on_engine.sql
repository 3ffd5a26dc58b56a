-- 0021: a bulk operation runs on the engine, as a built-in `jobscope.bulk` job
-- (lib/jobs/bulk.ts, lib/worker/builtin-handlers.ts) instead of in the background of the web
-- process that confirmed it: a restart of that process no longer strands it. The job belongs to
-- the built-in tenant `jobscope`, created by the first bulk action (not here: `npm start` seeds
-- the demo only into a database without tenants). The operation records its job and the audit
-- row each item writes (the confirming person, as data: the worker that runs it cannot hold a closure).
ALTER TABLE "bulk_operations" ADD COLUMN "job_id" uuid;
--> statement-breakpoint
ALTER TABLE "bulk_operations" ADD COLUMN "item_audit" jsonb;
--> statement-breakpoint
-- The worker role runs the operation: it reads the operation, settles its items, and appends
-- each item's audit row (never reads the audit log).
GRANT SELECT, UPDATE ON "bulk_operations", "bulk_operation_items" TO jobscope_worker;
--> statement-breakpoint
GRANT INSERT ON "audit_log" TO jobscope_worker;
--> statement-breakpoint
CREATE POLICY worker_append ON "audit_log" FOR INSERT TO jobscope_worker WITH CHECK (true);

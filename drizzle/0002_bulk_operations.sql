CREATE TYPE "public"."bulk_status" AS ENUM('running', 'done', 'failed');--> statement-breakpoint
CREATE TABLE "bulk_operation_items" (
	"operation_id" uuid NOT NULL,
	"job_id" uuid NOT NULL,
	"expected_state" "job_state" NOT NULL,
	"expected_version" integer NOT NULL,
	"outcome" text,
	"reason" text,
	CONSTRAINT "bulk_operation_items_operation_id_job_id_pk" PRIMARY KEY("operation_id","job_id")
);
--> statement-breakpoint
CREATE TABLE "bulk_operations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"event" "job_event" NOT NULL,
	"actor_kind" "actor_kind" NOT NULL,
	"actor_id" text NOT NULL,
	"description" text NOT NULL,
	"total" integer NOT NULL,
	"status" "bulk_status" DEFAULT 'running' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "bulk_operation_items" ADD CONSTRAINT "bulk_operation_items_operation_id_bulk_operations_id_fk" FOREIGN KEY ("operation_id") REFERENCES "public"."bulk_operations"("id") ON DELETE no action ON UPDATE no action;
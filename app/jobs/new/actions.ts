"use server";

import { z } from "zod";
import { consoleAction, type Done } from "@/lib/frame/action";
import { enqueue, EnqueueError } from "@/lib/jobs/enqueue";
import { maySubmit } from "@/lib/jobs/job-types";
import { AppError, type ErrorBody, type InputIssue } from "@/lib/result";

/** A problem with one field of the submission: a field of the form (`tenantId`, `priority`) or of the params (`params.frames`). */
/** A refusal of the submission, with each field's problem for the form to show beside it. */
export type SubmitError = ErrorBody & { issues?: InputIssue[] };

/**
 * The form's fields as the browser sends them. Types are loose on purpose: the job's own checks
 * (lib/jobs/enqueue.ts: the type's params schema, the queue's pattern, the budget's range, the
 * tenant) are the ones a submission through the API meets, and they name each field.
 */
const Input = z.strictObject({
  tenantId: z.string().max(100),
  type: z.string().max(200),
  params: z.unknown(),
  queue: z.string().max(100).optional(),
  priority: z.coerce.number().optional(),
  maxAttempts: z.coerce.number().optional(),
  notBefore: z.string().max(40).optional(),
  idempotencyKey: z.string().max(200).optional(),
});

/**
 * An operator submits a job from the console, for the tenant they chose, as themselves (the
 * operator actor): validated exactly as a submission through the API is, each problem named by its
 * field, nothing written unless it passes; audited with the job it made.
 */
export const submitJobAction = consoleAction({
  permission: "jobs:operate",
  forbidden: "Only an operator may submit jobs from the console.",
  audit: "job.submit",
  input: Input,
  change: async ({ tx, input, actor }): Promise<Done<{ id: string; created: boolean }, SubmitError>> => {
    if (!input.tenantId.trim()) return refused([{ path: "tenantId", message: "choose the tenant the job is for" }]);
    if (!maySubmit(input.type, "console"))
      throw new AppError("invalid_input", `Nothing was submitted: ${input.type} jobs are submitted only by Jobscope itself.`);
    const notBefore = input.notBefore ? new Date(input.notBefore) : undefined;
    if (notBefore && Number.isNaN(notBefore.getTime())) return refused([{ path: "notBefore", message: "not a date and time" }]);
    try {
      // In a savepoint: a refusal by the database (an unknown tenant) leaves the transaction usable for the audit row.
      const { job, created } = await tx.transaction((sp) =>
        enqueue(
          sp,
          {
            tenantId: input.tenantId.trim(),
            type: input.type,
            params: input.params,
            queue: input.queue?.trim() || undefined,
            priority: input.priority ?? 0,
            maxAttempts: input.maxAttempts,
            notBefore,
            idempotencyKey: input.idempotencyKey?.trim() || undefined,
          },
          actor(),
        ),
      );
      const what = `${job.type} job ${job.id} for ${job.tenantId} on ${job.queue}`;
      return created
        ? { ok: true, message: `Submitted ${what}.`, data: { id: job.id, created } }
        : {
            ok: true,
            message: `That idempotency key was used before: ${what} is the job it made. Nothing new was submitted.`,
            data: { id: job.id, created },
          };
    } catch (e) {
      if (!(e instanceof EnqueueError)) throw e;
      if (e.code === "invalid_params") return refused(e.issues.map((i) => ({ path: i.path ? `params.${i.path}` : "params", message: i.message })));
      if (e.code === "invalid_input") return refused(e.issues);
      if (e.code === "unknown_tenant") return refused([{ path: "tenantId", message: e.message }]);
      throw new AppError("invalid_input", `Nothing was submitted: ${e.message}.`);
    }
  },
});

/** Bad input in words, each field's problem kept for the form; nothing was written, so nothing rolls back. */
function refused(issues: InputIssue[]): { ok: false; error: SubmitError; reason: string } {
  const said = issues.map((i) => `${i.path}: ${i.message}`).join("; ");
  return { ok: false, error: { code: "invalid_input", message: `Nothing was submitted. ${said}.`, issues }, reason: said };
}

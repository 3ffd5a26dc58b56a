/**
 * Why an item of a bulk action or a replay was not applied, in words: one list for every progress
 * and outcome view (the refusal kinds of lib/jobs/bulk.ts BulkOutcome), each led by its kind as the
 * rejections page and the audit log name it.
 */
export const REFUSAL_WORDS: Record<string, string> = {
  conflict: "conflict: the job moved after the dry run",
  illegal: "illegal: the action is not allowed from its state now",
  drift: "drift: the row changed outside the write path",
  not_found: "not found: the job no longer exists",
  error: "error: the write failed",
};

export const refusalWords = (kind: string) => REFUSAL_WORDS[kind] ?? kind;

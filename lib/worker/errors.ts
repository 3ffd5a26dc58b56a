/**
 * Throw from a handler when retrying cannot help (bad input, a 4xx from a
 * partner): the worker abandons the job at once instead of scheduling a retry.
 */
export class PermanentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PermanentError";
  }
}

/**
 * Thrown by `ctx.checkpoint()` when the job is `cancelling`. A handler lets it
 * propagate (after its own cleanup); the worker then reports `stop`.
 */
export class JobCancelled extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} was cancelled`);
    this.name = "JobCancelled";
  }
}

/**
 * The reason `ctx.signal` is aborted when the worker no longer holds the
 * lease: the supervisor reclaimed the job, or it was cancelled outside the
 * worker. Whatever the handler does next is never reported.
 */
export class LeaseLost extends Error {
  constructor(jobId: string, attempt: number) {
    super(`lease on job ${jobId} attempt ${attempt} is lost`);
    this.name = "LeaseLost";
  }
}

/** The reason `ctx.signal` is aborted when `stop()` gave up waiting for the handler. */
export class DrainTimeout extends Error {
  constructor(jobId: string) {
    super(`worker stopped before job ${jobId} finished; its lease will expire and it will be reclaimed`);
    this.name = "DrainTimeout";
  }
}

/** Run records keep at most this much of an error message. */
export const MAX_ERROR_MESSAGE_BYTES = 8 * 1024;

/** The error class and message stored on the run record. */
export function describeError(e: unknown): { class: string; message: string } {
  if (!(e instanceof Error)) return { class: "NonErrorThrown", message: cap(asText(e)) };
  // A subclass that does not set `name` still says "Error"; its constructor names it better.
  const ctor = e.constructor?.name;
  const cls = e.name && e.name !== "Error" ? e.name : ctor && ctor !== "Object" ? ctor : "Error";
  return { class: cls, message: cap(e.message) };
}

/** A thrown value as text; one that cannot be turned into a string (no prototype, a throwing toString) still says what it is. */
function asText(e: unknown): string {
  try {
    return String(e);
  } catch {
    return Object.prototype.toString.call(e);
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function cap(message: string): string {
  const bytes = encoder.encode(message);
  if (bytes.length <= MAX_ERROR_MESSAGE_BYTES) return message;
  // A cut through a multi-byte character decodes to U+FFFD; drop it.
  const cut = decoder.decode(bytes.subarray(0, MAX_ERROR_MESSAGE_BYTES - 16)).replace(/\uFFFD+$/, "");
  return `${cut}… [truncated]`;
}

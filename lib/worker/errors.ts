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
/** …and of its stack (the frames of the error and of its causes). */
export const MAX_ERROR_STACK_BYTES = 16 * 1024;
/** How many causes deep a stack follows `error.cause`. */
const MAX_CAUSES = 4;

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

/**
 * The stack stored with a failed attempt, for staff (a tenant never sees it: lib/jobs/redact.ts): the
 * error's frames without its first line (the class and message are stored beside it), then each
 * cause's ("Caused by: Class: message" and its frames), up to MAX_CAUSES deep. Paths under the
 * worker's working directory are made relative (the host's layout is not the reader's business and
 * takes room); capped at MAX_ERROR_STACK_BYTES like the message. Undefined when there are no frames.
 */
export function errorStack(e: unknown): string | undefined {
  const parts: string[] = [];
  let cur: unknown = e;
  for (let depth = 0; cur instanceof Error && depth <= MAX_CAUSES; depth++) {
    const frames = framesOf(cur);
    if (depth === 0) {
      if (frames) parts.push(frames);
    } else {
      const { class: cls, message } = describeError(cur);
      parts.push(`Caused by: ${cls}: ${message.split("\n")[0]}${frames ? `\n${frames}` : ""}`);
    }
    cur = read(() => (cur as Error).cause);
  }
  if (parts.length === 0) return undefined;
  const cwd = process.cwd();
  const text = parts.join("\n").replaceAll(`file://${cwd}/`, "").replaceAll(`${cwd}/`, "");
  return cap(text, MAX_ERROR_STACK_BYTES);
}

/** The frame lines of a V8 stack (`    at …`), or "" when it has none or cannot be read. */
function framesOf(e: Error): string {
  const stack = read(() => e.stack);
  if (typeof stack !== "string") return "";
  const lines = stack.split("\n");
  const first = lines.findIndex((l) => /^\s+at /.test(l));
  return first < 0 ? "" : lines.slice(first).join("\n");
}

/** A property of a thrown value, which may be a getter that throws. */
function read<T>(get: () => T): T | undefined {
  try {
    return get();
  } catch {
    return undefined;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function cap(message: string, max = MAX_ERROR_MESSAGE_BYTES): string {
  const bytes = encoder.encode(message);
  if (bytes.length <= max) return message;
  // A cut through a multi-byte character decodes to U+FFFD; drop it.
  const cut = decoder.decode(bytes.subarray(0, max - 16)).replace(/\uFFFD+$/, "");
  return `${cut}… [truncated]`;
}

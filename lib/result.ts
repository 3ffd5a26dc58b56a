import type { ZodError } from "zod";

/**
 * The one error and the one result of the console's edge (server actions, route handlers).
 *
 * A known failure is an `AppError`: a code from the list below, a message a person can act on,
 * and the HTTP status a route answers with. Lib code throws it for refusals that are about the
 * request (a taken name, the last admin, an unknown tenant); the edge (lib/frame) turns it into a
 * `Result` for an action or `{ error: { code, message } }` for a route. Anything else thrown is
 * unknown: logged on the server, answered generically, never shown raw.
 *
 * The state machine's refusals (`transition` → `Rejection`) stay values; the edge maps them to the
 * same `Result` (docs/decisions.md, "One frame at the edge: one error and one result").
 */

/** Every code a console answer may carry, and the HTTP status a route handler gives it. */
export const APP_ERROR_STATUS = {
  unauthenticated: 401,
  forbidden: 403,
  invalid_input: 400,
  too_many: 400,
  not_found: 404,
  /** A rule of the domain said no (the last admin, a taken name, a missing rule). */
  refused: 409,
  /** The state machine's refusals: the job moved since the page showed it, or the move is not allowed. */
  conflict: 409,
  illegal: 409,
  drift: 409,
  /** A selection that resolved to nothing. */
  empty: 409,
  internal: 500,
} as const satisfies Record<string, number>;

export type AppErrorCode = keyof typeof APP_ERROR_STATUS;

/** An error as the browser receives it. */
export type ErrorBody = { code: AppErrorCode; message: string };

/** What every server action answers: the data (and what was done, in words), or why nothing was. */
export type Result<T = null, E extends ErrorBody = ErrorBody> = { ok: true; data: T; message?: string } | { ok: false; error: E };

export class AppError extends Error {
  readonly status: number;
  /** The audit log's reason when it differs from the message (it may name what the message leaves out). */
  readonly reason: string;
  constructor(
    readonly code: AppErrorCode,
    /** Shown to the person: no SQL, no stack, no secret. */
    readonly userMessage: string,
    options: { reason?: string; status?: number } = {},
  ) {
    super(userMessage);
    this.name = "AppError";
    this.status = options.status ?? APP_ERROR_STATUS[code];
    this.reason = options.reason ?? userMessage;
  }

  /** The same refusal with a message for this edge ("Not created: …"), its code and audit reason kept. */
  rephrase(message: string, code: AppErrorCode = this.code): AppError {
    return new AppError(code, message, {
      reason: this.reason === this.userMessage ? message : this.reason,
      status: code === this.code ? this.status : undefined,
    });
  }

  get body(): ErrorBody {
    return { code: this.code, message: this.userMessage };
  }
}

/** `err` as an AppError with code `code`, or null (for a catch that handles one refusal and rethrows the rest). */
export const appErrorOf = (err: unknown, ...codes: AppErrorCode[]): AppError | null =>
  err instanceof AppError && (codes.length === 0 || codes.includes(err.code)) ? err : null;

/** A failed Result from an error code and message. */
export const failure = <E extends ErrorBody = ErrorBody>(error: E): Result<never, E> => ({ ok: false, error });

/** One problem with an input: where it is (a dotted path, "" for the value as a whole) and what is wrong. */
export type InputIssue = { path: string; message: string };

const joinPath = (prefix: string, path: readonly PropertyKey[]) => [prefix, ...path.map(String)].filter((p) => p !== "").join(".");

/** A zod error's issues as paths and messages; `prefix` places them inside a larger value ("params"). */
export const inputIssues = (error: ZodError, prefix = ""): InputIssue[] =>
  error.issues.map((i) => ({ path: joinPath(prefix, i.path), message: i.message }));

/** How `describeInvalid` names things, for where the input came from. */
export type InvalidWords = {
  /** The value as a whole, for an issue about all of it: "input" (the default), "body", "query". */
  whole?: string;
  /** Where the value sits in what was sent: with "params", an issue at "frames" reads "params.frames". */
  prefix?: string;
  /** A path in the reader's words ("query parameter limit", "Tenant owner"); the path itself by default. */
  label?: (path: string) => string;
  /** What an unknown key is called: "field" (the default), "query parameter". */
  key?: string;
  /** How many issues to name, the first first (default 1). */
  most?: number;
};

/**
 * THE words for invalid input, for server actions, route handlers, the API and lib alike: each issue as
 * "field: problem" ("input: problem" about the value as a whole), unknown keys as `unknown field "x"`.
 * It names fields and keys (cut short), never a submitted value: a password may be one.
 */
export function describeInvalid(error: ZodError | readonly InputIssue[], words: InvalidWords = {}): string {
  const { whole = "input", prefix = "", label = (p: string) => p, key = "field", most = 1 } = words;
  const issues: (InputIssue & { keys?: readonly string[] })[] =
    "issues" in error
      ? error.issues.map((i) => ({ path: joinPath(prefix, i.path), message: i.message, keys: i.code === "unrecognized_keys" ? i.keys : undefined }))
      : error.map((i) => ({ ...i, path: joinPath(prefix, i.path ? [i.path] : []) }));
  const parts = issues.slice(0, most).map(({ path, message, keys }) => {
    if (keys) return `unknown ${key}${keys.length > 1 ? "s" : ""} ${keys.map((k) => JSON.stringify(k.slice(0, 50))).join(", ")}`;
    return `${path ? label(path) : whole}: ${message}`;
  });
  return parts.length ? parts.join("; ") : `${whole}: invalid`;
}

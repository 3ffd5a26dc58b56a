import "server-only";
import type { z } from "zod";
import type { AuditAction } from "../audit/actions";
import { ANONYMOUS, recordAudit, type AuditOutcome } from "../audit/audit";
import { auditDenied, auditRefusedRequest, principalOf } from "../audit/console";
import type { Permission } from "../auth/permissions";
import { actorOf, authorize, withViewer, type Viewer } from "../auth/viewer";
import { pool, type Db, type Tx } from "../db/client";
import type { Actor } from "../jobs/types";
import { describeBadText, findBadText } from "../input";
import { AppError, describeInvalid, type AppErrorCode, type ErrorBody, type Result } from "../result";
import { withSpan } from "../tracing/tracing";

/** What an action's body is given: the parsed input and who is calling. */
export type ActionContext<I> = {
  input: I;
  viewer: Viewer;
  /** The state machine's actor for the viewer; throws a "forbidden" AppError for a read-only role. */
  actor: () => Actor;
};

/**
 * What an action's body answers: done (its data; `message` tells the person what was done,
 * `reason` the audit log when it must say less, e.g. never a password), or a refusal that commits
 * — the state machine's, whose rejection row must stay. A refusal that writes nothing is thrown
 * as an AppError instead: the transaction rolls back and the refusal is audited on its own.
 */
export type Done<T, E extends ErrorBody = ErrorBody> =
  { ok: true; data: T; message?: string; reason?: string } | { ok: false; error: E; reason: string };

type Body<I, T, E extends ErrorBody> =
  /** A change: runs in the viewer's scoped transaction, and its audit row commits with it. */
  | { change: (ctx: ActionContext<I> & { tx: Tx }) => Promise<Done<T, E>>; read?: never; call?: never }
  /** A read or a dry run: runs in the viewer's scoped transaction; only refusals are audited. */
  | { read: (ctx: ActionContext<I> & { tx: Tx }) => Promise<Done<T, E>>; change?: never; call?: never }
  /** A lib call that opens its own transaction and writes its own audit rows (API keys, bulk actions). */
  | { call: (ctx: ActionContext<I>) => Promise<Done<T, E>>; change?: never; read?: never };

export type ActionSpec<S extends z.ZodType, T, E extends ErrorBody = ErrorBody> = {
  /** Asked first, every time (lib/auth/permissions.ts). */
  permission: Permission;
  /** The audit log's name; a function when the input names it. Null only for an action the log does not list. */
  audit: AuditAction | ((input: z.output<S> | null, raw: unknown) => AuditAction) | null;
  /** The jobs the audit rows name (a job's own action). */
  jobIds?: (raw: unknown) => readonly string[];
  /** Needs more than the permission: the refusal's message, or null. Asked before the input is read. */
  may?: (viewer: Viewer) => string | null;
  /** The message of a denial, when the permission's own ("Your role may not do this.") says too little. */
  forbidden?: string;
  /** Strict: unknown fields are refused. */
  input: S;
  /** Bad input in words (default: "Nothing was changed. field: problem."). Never echo the values. */
  invalid?: (error: z.ZodError) => string | AppError;
  /** What the person reads when the server failed (the cause goes to the server log only). */
  failed?: string;
  /** The span's name when `audit` is null or depends on the input. */
  span?: string;
} & Body<z.output<S>, T, E>;

const FAILED = "The server could not complete this. Details are in the server log; nothing was changed.";

/** How the audit log names a refusal of each code. */
const outcomeOf = (code: AppErrorCode): AuditOutcome =>
  code === "forbidden" || code === "unauthenticated" ? "denied" : code === "invalid_input" || code === "too_many" ? "invalid" : "refused";

/**
 * THE frame of every server action (a server action is a public POST endpoint): authorise → refuse
 * text PostgreSQL cannot store → validate with zod → run in the viewer's scope → audit → a typed `Result`. Every refusal is audited (denied,
 * invalid, refused) and every failure too; a change's own audit row commits with it. A thrown
 * AppError is a refusal; anything else thrown is logged and answered generically.
 *
 *   export const pauseThingAction = consoleAction({ permission, audit, input, change: async ({ tx, input }) => … });
 *
 * lib/auth/coverage.test.ts fails for a "use server" export not built here.
 */
export function consoleAction<S extends z.ZodType, T, E extends ErrorBody = ErrorBody>(
  spec: ActionSpec<S, T, E>,
): (raw: unknown) => Promise<Result<T, E>> {
  const name = spec.span ?? nameOf(spec, null, undefined) ?? "action";
  // A span per console action (lib/tracing): a no-op without an OpenTelemetry SDK.
  return (raw) => withSpan(`console ${name}`, { "jobscope.console.action": name }, () => frame(spec, raw));
}

function nameOf<S extends z.ZodType>(spec: ActionSpec<S, unknown, ErrorBody>, input: z.output<S> | null, raw: unknown): AuditAction | null {
  return typeof spec.audit === "function" ? spec.audit(input, raw) : spec.audit;
}

async function frame<S extends z.ZodType, T, E extends ErrorBody>(spec: ActionSpec<S, T, E>, raw: unknown): Promise<Result<T, E>> {
  let action = nameOf(spec, null, raw);
  const jobIds = spec.jobIds?.(raw) ?? [];
  let viewer: Viewer | null = null;
  const audit = (db: Db, outcome: AuditOutcome, reason: string) =>
    action ? recordAudit(db, { ...(viewer ? principalOf(viewer) : ANONYMOUS), via: "console", action, jobIds, outcome, reason }) : Promise.resolve();
  // A refusal that writes nothing else: its repeats are aggregated (lib/audit/anonymous.ts), so a
  // script or a stuck button repeating it is one row a minute, signed in or not.
  const refused = (outcome: AuditOutcome, reason: string) =>
    action && outcome !== "applied" && outcome !== "error" ? auditRefusedRequest(viewer, action, outcome, reason, jobIds) : Promise.resolve();
  try {
    const auth = await authorize(spec.permission);
    if (!auth.ok) {
      if (action) await auditDenied(auth, action, jobIds);
      return refusal({ code: "forbidden", message: spec.forbidden ?? auth.message });
    }
    const who = auth.viewer;
    viewer = who;
    const mayNot = spec.may?.(who);
    if (mayNot) {
      await refused("denied", mayNot);
      return refusal({ code: "forbidden", message: mayNot });
    }
    // Text PostgreSQL cannot store (a NUL, a lone surrogate), anywhere in the input: said, not a driver error.
    const bad = findBadText(raw);
    if (bad) {
      const message = `Nothing was changed. ${describeBadText(bad)}.`;
      await refused("invalid", message);
      return refusal({ code: "invalid_input", message });
    }
    const parsed = spec.input.safeParse(raw);
    if (!parsed.success) {
      const said = spec.invalid?.(parsed.error) ?? `Nothing was changed. ${describeInvalid(parsed.error)}.`;
      const e = said instanceof AppError ? said : new AppError("invalid_input", said);
      await refused(outcomeOf(e.code), e.reason);
      return refusal(e.body);
    }
    action = nameOf(spec, parsed.data, raw);
    const ctx: ActionContext<z.output<S>> = { input: parsed.data, viewer: who, actor: () => actorFor(who) };
    let done: Done<T, E>;
    try {
      if (spec.change) {
        const change = spec.change;
        done = await withViewer(who, async (tx) => {
          const d = await change({ ...ctx, tx });
          await audit(tx, d.ok ? "applied" : outcomeOf(d.error.code), d.ok ? (d.reason ?? d.message ?? "") : d.reason);
          return d;
        });
      } else if (spec.read) {
        const read = spec.read;
        done = await withViewer(who, (tx) => read({ ...ctx, tx }));
        if (!done.ok) await refused(outcomeOf(done.error.code), done.reason);
      } else {
        done = await spec.call(ctx);
        if (!done.ok) await refused(outcomeOf(done.error.code), done.reason);
      }
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      // The transaction rolled back: the refusal is recorded on its own.
      await refused(outcomeOf(err.code), err.reason);
      return refusal(err.body);
    }
    if (!done.ok) return { ok: false, error: done.error };
    return done.message === undefined ? { ok: true, data: done.data } : { ok: true, data: done.data, message: done.message };
  } catch (err) {
    // The cause stays in the server log: a database error can name tables, hosts or credentials.
    console.error(`${action ?? spec.span ?? "a console action"} failed:`, err);
    try {
      await audit(pool(), "error", "internal error (see the server log)");
    } catch (auditErr) {
      console.error(`[jobscope] could not audit the failed ${action}:`, auditErr);
    }
    return refusal({ code: "internal", message: spec.failed ?? FAILED });
  }
}

// A refusal decided here carries only a code and a message; the action's own error type (E) may
// add fields (a job's current state), which these never have.
const refusal = <T, E extends ErrorBody>(error: ErrorBody): Result<T, E> => ({ ok: false, error: error as E });

function actorFor(viewer: Viewer): Actor {
  const actor = actorOf(viewer);
  if (!actor) throw new AppError("forbidden", `Your role (${viewer.role}) may not change anything here.`);
  return actor;
}

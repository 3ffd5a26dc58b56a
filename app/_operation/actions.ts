"use server";

import { z } from "zod";
import type { AuditAction } from "@/lib/audit/actions";
import { recordAudit } from "@/lib/audit/audit";
import { auditBulkItems } from "@/lib/audit/bulk";
import { principalOf } from "@/lib/audit/console";
import { can } from "@/lib/auth/permissions";
import { withViewer, withViewerRead, type Viewer } from "@/lib/auth/viewer";
import { pool } from "@/lib/db/client";
import { consoleAction, type Done } from "@/lib/frame/action";
import { isEventOf } from "@/lib/fsm/machine";
import { EVENTS } from "@/lib/fsm/table";
import { BULK_CAP, BULK_EVENTS, fromTuple, FrozenTuple, previewBulk, startBulk, toTuple, type BulkEvent, type FrozenJob } from "@/lib/jobs/bulk";
import { describeDiff, replayRisks } from "@/lib/jobs/replay";
import { transition } from "@/lib/jobs/transition";
import type { Actor } from "@/lib/jobs/types";
import { AppError, describeInvalid } from "@/lib/result";
import { viewerTimeZone } from "@/lib/server/time-zone";
import { isUuid } from "@/lib/uuid";
import { deleteNow, previewDeletion } from "./delete";
import { describeRejection } from "./describe-rejection";
import { acceptedEdit, describeSelection, DIRECT_MAX, editedJob, editOf, MAX_SELECTED, resolve, Selection } from "./selection";
import type { JobOutcome, OperationKind, OperationResult } from "@/lib/client/wire";
import type { OperationPreview } from "./types";

/**
 * Every operation on jobs from the console — an event on one job from its page, a replay from /dead,
 * a bulk action of the jobs list — is these two actions: a dry run (what would move, what would
 * not and why, a replay's risks and editable params), and the confirm. The confirm applies one
 * job, or up to DIRECT_MAX picked one by one, at once: one guarded transition each
 * (lib/jobs/transition.ts → lib/jobs/write.ts) in the viewer's transaction, each with its audit row.
 * A group, a filter or a larger selection is frozen and run by a worker (lib/jobs/bulk.ts), so it
 * survives a restart of this process. Either way each job moves only from the state and version
 * the person saw, and the answer has one shape (OperationResult).
 */

/** An operator's event of the table, or deleting finished jobs (app/_operation/delete.ts). */
const Operation = z.enum(["delete", ...BULK_EVENTS] as [OperationKind, ...OperationKind[]]);
/** `params`: one job's edited params for its replay (any JSON: the job type's schema checks it). */
const PreviewInput = z.strictObject({ operation: Operation, selection: Selection, params: z.unknown().optional() });
const ApplyInput = z.strictObject({
  operation: Operation,
  selection: Selection,
  /** [id, state, version]: each job as the dry run (or the job's page) saw it. */
  jobs: z.array(FrozenTuple).min(1).max(BULK_CAP),
  params: z.unknown().optional(),
});

const ONLY_OPERATORS = "Only an operator may replay dead jobs, or act on several jobs at once.";

/** The operation a request names, when it is one: chosen from the fixed list, never the request's text. */
function operationOf(raw: unknown): OperationKind | null {
  const asked = (raw as { operation?: unknown } | null)?.operation;
  return typeof asked === "string" && (Operation.options as readonly string[]).includes(asked) ? (asked as OperationKind) : null;
}

/** The jobs a request names, for the audit rows of its refusal. */
function idsOf(raw: unknown): string[] {
  const jobs = (raw as { jobs?: unknown } | null)?.jobs;
  return Array.isArray(jobs) ? jobs.flatMap((j) => (Array.isArray(j) && typeof j[0] === "string" && isUuid(j[0]) ? [j[0]] : [])) : [];
}

/** One job is audited as the job's event (`job.cancel`); several as the operation they start. */
function auditNameOf(raw: unknown): AuditAction {
  if (operationOf(raw) === "delete") return "jobs.delete";
  const asked = (raw as { operation?: unknown } | null)?.operation;
  const jobs = (raw as { jobs?: unknown } | null)?.jobs;
  if (Array.isArray(jobs) && jobs.length === 1)
    return typeof asked === "string" && (EVENTS as readonly string[]).includes(asked) ? `job.${asked as BulkEvent}` : "job.unknown_event";
  return operationOf(raw) === "replay" ? "replay.start" : "bulk.start";
}

/** Who may: the table lets the viewer's actor apply the event, and more than one job is an operator's, as is deleting. */
function mayOperate(viewer: Viewer, actor: Actor, event: OperationKind, isOneJob: boolean) {
  if (event === "delete") {
    if (!can(viewer, "jobs:operate")) throw new AppError("forbidden", "Only an operator may delete jobs.");
    return;
  }
  if (!isEventOf(actor.kind, event))
    throw new AppError("forbidden", event === "replay" ? ONLY_OPERATORS : `Your role (${viewer.role}) may not apply ${event}.`);
  if (!isOneJob && !can(viewer, "jobs:operate")) throw new AppError("forbidden", ONLY_OPERATORS);
}

/** The dry run: resolve the selection now and say what the operation would do to each job, without changing anything. */
export const previewOperationAction = consoleAction({
  permission: "jobs:operate",
  forbidden: ONLY_OPERATORS,
  audit: (_input, raw) => {
    const asked = operationOf(raw);
    return asked === "delete" ? "jobs.delete_preview" : asked === "replay" ? "replay.preview" : "bulk.preview";
  },
  input: PreviewInput,
  invalid: (e) =>
    e.issues.some((i) => i.code === "too_big" && i.path[1] === "ids")
      ? new AppError("too_many", `Select at most ${MAX_SELECTED.toLocaleString("en-US")} jobs at once, or use their whole group or filter.`)
      : "That selection is not valid: reload the page and try again.",
  failed: "Could not prepare the dry run: the database did not answer. Details are in the server log.",
  read: async ({ tx, input: { operation, selection: s, params }, viewer, actor }): Promise<Done<OperationPreview>> => {
    const a = actor();
    mayOperate(viewer, a, operation, false);
    if (params !== undefined && operation !== "replay") throw new AppError("invalid_input", "Params are edited on a replay only.");
    // Edited params name one job; anything else is refused before a read.
    if (params !== undefined) editedJob(s);
    const { target, capped } = await resolve(tx, s);
    if (operation === "delete") return { ok: true, data: await previewDeletion(tx, target, { description: describeSelection(s), capped }) };
    const p = await previewBulk(tx, { selection: target, event: operation, actor: a });
    const isReplay = operation === "replay";
    const single = s.kind === "ids" && s.ids.length === 1 ? s.ids[0]! : null;
    const data: OperationPreview = {
      operation,
      description: describeSelection(s),
      total: p.total,
      willApply: p.willApply,
      willSkip: p.willSkip,
      capped: p.capped || capped,
      jobs: p.frozen.map(toTuple),
      isDirect: isDirect(s, p.frozen.length),
      risks: isReplay
        ? await replayRisks(
            tx,
            p.frozen.map((j) => j.id),
          )
        : null,
      edit: isReplay && single ? await editOf(tx, single, params) : null,
      history: null,
    };
    return { ok: true, data };
  },
});

/** One job is always applied at once; jobs picked one by one too, up to DIRECT_MAX. */
const isDirect = (s: Selection, n: number) => n === 1 || (s.kind === "ids" && n <= DIRECT_MAX);

/** Confirmed: move exactly these jobs, each only if it is still as the person saw it. The one entry point of every operation. */
export const applyOperationAction = consoleAction({
  // A tenant member cancels its own job here too: who may do what is decided below, from the table.
  permission: "jobs:read",
  audit: (_input, raw) => auditNameOf(raw),
  jobIds: idsOf,
  span: "job.operation",
  input: ApplyInput,
  // Names the field (never its value): the audit log tells one crafted request from another.
  invalid: (e) => `Nothing was changed: ${describeInvalid(e)}.`,
  failed: "The server could not complete this operation. Details are in the server log; the page shows the jobs as they are now.",
  call: async ({ input, viewer, actor: actorOf }): Promise<Done<OperationResult>> => {
    const { operation: event, selection, params } = input;
    const actor = actorOf();
    const isOneJob = selection.kind === "ids" && selection.ids.length === 1;
    mayOperate(viewer, actor, event, isOneJob);
    const jobs = input.jobs.map(fromTuple);
    if (isOneJob && (jobs.length !== 1 || jobs[0]!.id !== selection.ids[0]))
      throw new AppError("invalid_input", "Nothing was changed: the job confirmed is not the job selected.");
    let description = describeSelection(selection);
    if (event === "delete") {
      if (params !== undefined) throw new AppError("invalid_input", "Params are edited on a replay only.");
      return {
        ok: true,
        data: await deleteNow(
          viewer,
          input.jobs.map(([id]) => id),
          description,
        ),
      };
    }
    if (params !== undefined) {
      if (event !== "replay") throw new AppError("invalid_input", "Params are edited on a replay only.");
      const jobId = editedJob(selection);
      if (jobs.length !== 1 || jobs[0]!.id !== jobId)
        throw new AppError("invalid_input", "Edited params replay the one job their dry run froze: run the dry run again.");
      // Checked again here, in the viewer's scope: the browser's copy of the dry run is not trusted.
      const edit = acceptedEdit(await withViewerRead(viewer, (tx) => editOf(tx, jobId, params)));
      jobs[0] = { ...jobs[0]!, params: edit.params };
      description = `${description} with edited params: ${describeDiff(edit.diff ?? [])}`;
    }
    if (isDirect(selection, jobs.length)) return { ok: true, data: await applyNow(viewer, actor, event, description, jobs) };
    const { operationId } = await startBulk(pool(), { frozen: jobs, event, actor, description, audit: auditBulkItems(viewer, event, description) });
    const data: OperationResult = {
      operationId,
      event,
      description,
      status: "running",
      total: jobs.length,
      done: 0,
      applied: 0,
      refused: [],
      jobs: [],
    };
    return { ok: true, data };
  },
});

/**
 * Each job's guarded transition, in the viewer's transaction (row-level security confines a tenant
 * member), each with its audit row: the state machine's refusal is a value, so it commits with its
 * rejection row and its audit row, and the answer names who moved the job first.
 */
async function applyNow(viewer: Viewer, actor: Actor, event: BulkEvent, description: string, jobs: FrozenJob[]): Promise<OperationResult> {
  let tz: string | undefined;
  const edited = jobs.length === 1 && jobs[0]!.params !== undefined ? ` (${description})` : "";
  const outcomes = await withViewer(viewer, async (tx) => {
    const out: (JobOutcome & { reason: string })[] = [];
    for (const job of jobs) {
      const r = await transition(tx, {
        jobId: job.id,
        event,
        actor,
        expected: { state: job.state, version: job.version },
        // A replay with edited params carries them on its transition: the job_log row keeps them, and the live row runs with them.
        payload: job.params === undefined ? undefined : { params: job.params },
      });
      const reason = r.ok ? `${r.from} → ${r.job.state}${edited}` : `${r.kind}: ${r.reason}`;
      await recordAudit(tx, {
        ...principalOf(viewer),
        via: "console",
        action: `job.${event}`,
        jobIds: [job.id],
        outcome: r.ok ? "applied" : "refused",
        reason,
      });
      out.push(
        r.ok
          ? { id: job.id, outcome: "applied", state: r.job.state, stateVersion: r.job.stateVersion, message: "", reason }
          : {
              id: job.id,
              outcome: r.kind,
              state: r.current?.state ?? null,
              stateVersion: r.current?.stateVersion ?? null,
              message: describeRejection(r, event, Date.now(), (tz ??= await viewerTimeZone())),
              reason: r.reason,
            },
      );
    }
    return out;
  });
  const refused = new Map<string, { count: number; sampleReason: string }>();
  for (const o of outcomes) {
    if (o.outcome === "applied") continue;
    const seen = refused.get(o.outcome);
    refused.set(o.outcome, { count: (seen?.count ?? 0) + 1, sampleReason: seen?.sampleReason ?? o.reason });
  }
  return {
    operationId: null,
    event,
    description,
    status: "done",
    total: outcomes.length,
    done: outcomes.length,
    applied: outcomes.filter((o) => o.outcome === "applied").length,
    refused: [...refused].map(([kind, r]) => ({ kind: kind as OperationResult["refused"][number]["kind"], ...r })).sort((a, b) => b.count - a.count),
    jobs: outcomes.map((o) => ({ id: o.id, outcome: o.outcome, state: o.state, stateVersion: o.stateVersion, message: o.message })),
  };
}

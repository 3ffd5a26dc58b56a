"use server";

import { z } from "zod";
import { consoleAction } from "@/lib/frame/action";
import { AppError } from "@/lib/result";
import { createSchedule, deleteSchedule, runScheduleNow, ScheduleError, setSchedulePaused, updateSchedule } from "@/lib/schedules/schedules";
import { viewerTimeZone } from "@/lib/server/time-zone";
import { formatDateTime } from "@/lib/time-format";

/**
 * The schedules page's changes, each an operator's (`jobs:operate`, checked inside every action:
 * a server action is a public POST endpoint), each audited with what it did.
 */

/** A schedule's fields as the form sends them; params as the type's form read them (any JSON: the type's schema checks it). */
const Fields = {
  cron: z.string().max(200),
  timeZone: z.string().max(100),
  type: z.string().max(200),
  params: z.unknown(),
  tenantId: z.string().max(100),
  queue: z.string().max(100),
  priority: z.coerce.number().int().min(0).max(9),
};
const NewSchedule = z.strictObject({ name: z.string().max(200), ...Fields });
/** `seen`: the schedule's `updatedAt` as the page showed it; a change made since is refused, not overwritten. */
const Seen = { id: z.uuid(), seen: z.iso.datetime() };
const EditSchedule = z.strictObject({ ...Seen, ...Fields });
const ScheduleRef = z.strictObject(Seen);

const OPERATE = { permission: "jobs:operate", forbidden: "Only an operator may change schedules." } as const;

/**
 * `change`, whose refusals (lib/schedules' ScheduleError, naming a field) become the person's answer,
 * prefixed with what did not happen.
 */
async function refusing<T>(nothing: string, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (e) {
    if (e instanceof ScheduleError) throw new AppError(e.code === "invalid_input" ? "invalid_input" : "refused", `${nothing} ${e.message}.`);
    throw e;
  }
}

/** The person reads a time in their zone; the audit log keeps the ISO instant. */
async function said(s: (at: string) => string, at: Date) {
  return { message: s(formatDateTime(at, await viewerTimeZone())), reason: s(at.toISOString()) };
}

/** Create a schedule as the operator using the console; its first tick is the first after now. */
export const createScheduleAction = consoleAction({
  ...OPERATE,
  audit: "schedule.create",
  input: NewSchedule,
  change: async ({ tx, input, viewer }) => {
    const s = await refusing("Nothing was created.", () => createSchedule(tx, { ...input, queue: input.queue.trim() || undefined }, viewer.email));
    return {
      ok: true,
      ...(await said((due) => `Created schedule ${s.name} (${s.cron}, ${s.timeZone}): its first job is due at ${due}.`, s.nextRunAt)),
      data: { id: s.id },
    };
  },
});

/** Edit a console schedule: a new cron expression or zone starts again at its first tick after now. */
export const updateScheduleAction = consoleAction({
  ...OPERATE,
  audit: "schedule.update",
  input: EditSchedule,
  change: async ({ tx, input: { id, seen, ...fields }, viewer }) => {
    const s = await refusing("Nothing was changed.", () =>
      updateSchedule(tx, id, seen, { ...fields, queue: fields.queue.trim() || undefined }, viewer.email),
    );
    return {
      ok: true,
      ...(await said((due) => `Saved schedule ${s.name} (${s.cron}, ${s.timeZone}, ${s.type} for ${s.tenantId}): next job at ${due}.`, s.nextRunAt)),
      data: { id: s.id },
    };
  },
});

/** Delete a console schedule and its run records; the jobs it submitted stay. */
export const deleteScheduleAction = consoleAction({
  ...OPERATE,
  audit: "schedule.delete",
  input: ScheduleRef,
  change: async ({ tx, input: { id, seen } }) => {
    const s = await refusing("Nothing was deleted.", () => deleteSchedule(tx, id, seen));
    return {
      ok: true,
      message: `Deleted schedule ${s.name} (${s.cron}, ${s.timeZone}, ${s.type} for ${s.tenantId}); the jobs it submitted stay.`,
      data: { id },
    };
  },
});

/** Submit the schedule's job now, once, as the operator; its next tick stays where it was. */
export const runScheduleNowAction = consoleAction({
  ...OPERATE,
  audit: "schedule.run_now",
  input: z.strictObject({ id: z.uuid() }),
  change: async ({ tx, input: { id }, viewer, actor }) => {
    const { schedule: s, jobId } = await refusing("Nothing was submitted.", () => runScheduleNow(tx, id, actor(), `console:${viewer.email}`));
    return { ok: true, message: `Ran schedule ${s.name} now: job ${jobId} is queued; its next tick is unchanged.`, data: { jobId } };
  },
});

const PauseInput = z.strictObject({ id: z.uuid(), paused: z.boolean() });

/** Pause or resume a schedule. A resumed schedule starts at its next tick; paused ticks are not made up. */
export const setSchedulePausedAction = consoleAction({
  ...OPERATE,
  audit: (input) => (input ? (input.paused ? "schedule.pause" : "schedule.resume") : "schedule.pause"),
  input: PauseInput,
  change: async ({ tx, input: { id, paused }, viewer }) => {
    const r = await setSchedulePaused(tx, id, paused, viewer.email);
    if (!r) throw new AppError("refused", "Nothing was changed: that schedule does not exist.");
    const verb = paused ? "paused" : "resumed";
    if (!r.changed) return { ok: true, message: `Schedule ${r.schedule.name} was already ${verb}.`, data: { paused } };
    if (paused) return { ok: true, message: `Paused schedule ${r.schedule.name}: it submits nothing until resumed.`, data: { paused } };
    return {
      ok: true,
      ...(await said((next) => `Resumed schedule ${r.schedule.name}: next job at ${next}.`, r.schedule.nextRunAt)),
      data: { paused },
    };
  },
});

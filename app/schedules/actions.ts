"use server";

import { z } from "zod";
import { consoleAction } from "@/lib/edge/action";
import { AppError } from "@/lib/result";
import { createSchedule, ScheduleError, setSchedulePaused } from "@/lib/schedules/schedules";
import { viewerTimeZone } from "@/lib/server/time-zone";
import { formatDateTime } from "@/lib/time-format";

/** The create form's fields, as the browser sends them (params as JSON text). */
const NewSchedule = z.strictObject({
  name: z.string().max(200),
  cron: z.string().max(200),
  timeZone: z.string().max(100),
  type: z.string().max(200),
  params: z.string().max(20_000),
  tenantId: z.string().max(100),
  queue: z.string().max(100),
  priority: z.coerce.number().int().min(0).max(9),
});

/** Create a schedule as the operator using the console; its first tick is the first after now. */
export const createScheduleAction = consoleAction({
  permission: "jobs:operate",
  audit: "schedule.create",
  input: NewSchedule,
  change: async ({ tx, input, viewer }) => {
    let params: unknown;
    try {
      params = input.params.trim() ? JSON.parse(input.params) : {};
    } catch {
      throw new AppError("invalid_input", "Nothing was created. params: not valid JSON.");
    }
    try {
      const s = await createSchedule(tx, { ...input, params, queue: input.queue.trim() || undefined }, viewer.email);
      const created = (due: string) => `Created schedule ${s.name} (${s.cron}, ${s.timeZone}): its first job is due at ${due}.`;
      // The person reads the time in their zone; the audit log keeps the ISO instant.
      return {
        ok: true,
        message: created(formatDateTime(s.nextRunAt, await viewerTimeZone())),
        reason: created(s.nextRunAt.toISOString()),
        data: { id: s.id, nextRunAt: s.nextRunAt.toISOString() },
      };
    } catch (e) {
      // The schedule's own refusals (lib/schedules) name a field; here they are the form's answer.
      if (e instanceof ScheduleError) throw new AppError(e.code === "invalid_input" ? "invalid_input" : "refused", `Nothing was created. ${e.message}.`);
      throw e;
    }
  },
});

const PauseInput = z.strictObject({ id: z.uuid(), paused: z.boolean() });

/** Pause or resume a schedule. A resumed schedule starts at its next tick; paused ticks are not made up. */
export const setSchedulePausedAction = consoleAction({
  permission: "jobs:operate",
  audit: (input) => (input ? (input.paused ? "schedule.pause" : "schedule.resume") : "schedule.pause"),
  input: PauseInput,
  change: async ({ tx, input: { id, paused }, viewer }) => {
    const r = await setSchedulePaused(tx, id, paused, viewer.email);
    if (!r) throw new AppError("refused", "Nothing was changed: that schedule does not exist.");
    const verb = paused ? "paused" : "resumed";
    if (!r.changed) return { ok: true, message: `Schedule ${r.schedule.name} was already ${verb}.`, data: { paused } };
    if (paused) return { ok: true, message: `Paused schedule ${r.schedule.name}: it submits nothing until resumed.`, data: { paused } };
    const resumed = (next: string) => `Resumed schedule ${r.schedule.name}: next job at ${next}.`;
    return { ok: true, message: resumed(formatDateTime(r.schedule.nextRunAt, await viewerTimeZone())), reason: resumed(r.schedule.nextRunAt.toISOString()), data: { paused } };
  },
});

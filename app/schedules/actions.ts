"use server";

import { z } from "zod";
import { authorize } from "@/lib/auth/viewer";
import { createSchedule, ScheduleError, setSchedulePaused } from "@/lib/schedules/schedules";
import { operate, type OperateResult, type Refused } from "../_operate/operate";

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

const refuse = (e: ScheduleError): Refused => ({
  ok: false,
  code: e.code === "invalid_input" ? "invalid_input" : "refused",
  message: `Nothing was created. ${e.message}.`,
});

/** Create a schedule as the operator using the console; its first tick is the first after now. */
export async function createScheduleAction(raw: unknown): Promise<OperateResult<{ id: string; nextRunAt: string }>> {
  return operate(
    await authorize("jobs:operate"),
    raw,
    NewSchedule,
    () => "schedule.create",
    async (tx, input, { viewer }) => {
      let params: unknown;
      try {
        params = input.params.trim() ? JSON.parse(input.params) : {};
      } catch {
        return { ok: false, code: "invalid_input", message: "Nothing was created. params: not valid JSON." };
      }
      try {
        const s = await createSchedule(tx, { ...input, params, queue: input.queue.trim() || undefined }, viewer.email);
        return {
          ok: true,
          message: `Created schedule ${s.name} (${s.cron}, ${s.timeZone}): its first job is due at ${s.nextRunAt.toISOString()}.`,
          data: { id: s.id, nextRunAt: s.nextRunAt.toISOString() },
        };
      } catch (e) {
        if (e instanceof ScheduleError) return refuse(e);
        throw e;
      }
    },
  );
}

const PauseInput = z.strictObject({ id: z.uuid(), paused: z.boolean() });

/** Pause or resume a schedule. A resumed schedule starts at its next tick; paused ticks are not made up. */
export async function setSchedulePausedAction(raw: unknown): Promise<OperateResult<{ paused: boolean }>> {
  return operate(
    await authorize("jobs:operate"),
    raw,
    PauseInput,
    (input) => (input ? (input.paused ? "schedule.pause" : "schedule.resume") : "schedule.pause"),
    async (tx, { id, paused }, { viewer }) => {
      const r = await setSchedulePaused(tx, id, paused, viewer.email);
      if (!r) return { ok: false, code: "refused", message: "Nothing was changed: that schedule does not exist." };
      const verb = paused ? "paused" : "resumed";
      if (!r.changed) return { ok: true, message: `Schedule ${r.schedule.name} was already ${verb}.`, data: { paused } };
      return {
        ok: true,
        message: paused ? `Paused schedule ${r.schedule.name}: it submits nothing until resumed.` : `Resumed schedule ${r.schedule.name}: next job at ${r.schedule.nextRunAt.toISOString()}.`,
        data: { paused },
      };
    },
  );
}

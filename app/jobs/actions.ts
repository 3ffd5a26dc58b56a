"use server";

import { z } from "zod";
import { consoleAction, type Done } from "@/lib/frame/action";
import { confirmBulk } from "@/lib/frame/bulk-confirm";
import { BULK_CAP, BULK_EVENTS, fromTuple, FrozenTuple, previewBulk, toTuple, type BulkEvent, type BulkSelection } from "@/lib/jobs/bulk";
import { parseJobFilters } from "@/lib/jobs/filters";
import { describeFilter } from "./_components/describe";

/**
 * Every operator event but replay, which has its own dry run (what the jobs died of, how many attempts
 * a replay gives, edited params) and confirm: app/_replay/actions.ts, the one path for every replay.
 */
export type GenericBulkEvent = Exclude<BulkEvent, "replay">;
const GENERIC_EVENTS = BULK_EVENTS.filter((e): e is GenericBulkEvent => e !== "replay");
const Event = z.enum(GENERIC_EVENTS as [GenericBulkEvent, ...GenericBulkEvent[]], { error: "Replay goes through its own dry run: use Replay." });
const Uuid = z.uuid();

const PreviewInput = z.strictObject({
  event: Event,
  selection: z.union([
    z.strictObject({ ids: z.array(Uuid).min(1).max(BULK_CAP) }),
    // The list's query string, as in the URL: parsed exactly as the page parses it.
    z.strictObject({ search: z.string().max(4_000) }),
  ]),
});

const StartInput = z.strictObject({
  event: Event,
  description: z.string().trim().min(1).max(300),
  frozen: z.array(FrozenTuple).min(1).max(BULK_CAP),
});

export type BulkPreviewData = {
  event: GenericBulkEvent;
  description: string;
  total: number;
  willApply: number;
  willSkip: { reason: string; count: number }[];
  capped: boolean;
  frozen: FrozenTuple[];
};

/** Bulk actions are an operator's, checked inside every action (a server action is a public POST endpoint). */
const BULK = { permission: "jobs:operate", forbidden: "Only an operator may run bulk actions." } as const;

/** The dry run: what `event` would do to the selection now, without changing anything. */
export const previewBulkAction = consoleAction({
  ...BULK,
  audit: "bulk.preview",
  input: PreviewInput,
  invalid: () => "The selection or the action was not understood; reload the page and try again.",
  failed: "Could not prepare the dry run. Details are in the server log.",
  read: async ({ tx, input: { event, selection }, actor }): Promise<Done<BulkPreviewData>> => {
    const filters = "search" in selection ? parseJobFilters(new URLSearchParams(selection.search)) : null;
    const target: BulkSelection = filters ? { filter: filters } : { ids: "ids" in selection ? selection.ids : [] };
    const p = await previewBulk(tx, { selection: target, event, actor: actor() });
    const jobs = `${p.total} ${p.total === 1 ? "job" : "jobs"}`;
    const description = filters ? `${describeFilter(filters)} (${p.capped ? `the newest ${jobs}` : jobs})` : `${jobs} selected by id`;
    return {
      ok: true,
      data: {
        event,
        description,
        total: p.total,
        willApply: p.willApply,
        willSkip: p.willSkip,
        capped: p.capped,
        frozen: p.frozen.map(toTuple),
      },
    };
  },
});

/** Confirm a dry run: record the frozen selection and submit the job that moves it (a worker runs it). */
export const startBulkAction = consoleAction({
  ...BULK,
  audit: "bulk.start",
  input: StartInput,
  invalid: () => "The confirmed selection was not understood; run the dry run again.",
  failed: "Could not start the bulk action. Details are in the server log.",
  call: (ctx) => {
    const { event, description, frozen } = ctx.input;
    return confirmBulk(ctx, { event, description, frozen: frozen.map(fromTuple) });
  },
});

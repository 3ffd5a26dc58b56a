"use server";

import { z } from "zod";
import { consoleAction } from "@/lib/frame/action";
import { changeQueue, QUEUE_NAME, type QueueChange } from "@/lib/jobs/queues";

const Change = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("pause") }),
  z.strictObject({ kind: z.literal("resume") }),
  z.strictObject({ kind: z.literal("limit"), limit: z.int().min(1).max(100_000).nullable() }),
  z.strictObject({ kind: z.literal("fair"), fair: z.boolean() }),
]);
const Input = z.strictObject({ queue: z.string().regex(QUEUE_NAME, "not a queue name"), change: Change });

function describe(queue: string, c: QueueChange): string {
  switch (c.kind) {
    case "pause":
      return `Paused queue ${queue}: workers claim nothing from it; jobs already running finish.`;
    case "resume":
      return `Resumed queue ${queue}: workers claim from it again.`;
    case "limit":
      return c.limit === null
        ? `Queue ${queue} has no concurrency limit now.`
        : `Queue ${queue}: at most ${c.limit} jobs leased at once, across all workers.`;
    case "fair":
      return c.fair ? `Queue ${queue} claims in turn between tenants now.` : `Queue ${queue} claims in submit order now (not fair between tenants).`;
  }
}

/**
 * Pause, resume, cap or make fair one queue, as the operator using the console. The change and
 * its queue_events row (lib/jobs/queues.ts) and its audit row commit together.
 */
export const changeQueueAction = consoleAction({
  permission: "jobs:operate",
  audit: (input) => `queue.${input?.change.kind ?? "change"}`,
  input: Input,
  change: async ({ tx, input: { queue, change }, actor }) => {
    const s = await changeQueue(tx, queue, change, actor());
    return { ok: true, message: describe(queue, change), data: { paused: s.paused, concurrencyLimit: s.concurrencyLimit, fair: s.fair } };
  },
});

"use server";

import { z } from "zod";
import { consoleAction } from "@/lib/frame/action";
import { SILENT_AFTER_MS } from "@/lib/insight/windows";
import { AppError } from "@/lib/result";
import { requestDrain } from "@/lib/worker/registry";

/**
 * Ask one worker process to drain: it reads the request with its next heartbeat, stops claiming,
 * lets the jobs it holds finish (up to its drain timeout) and stops, exactly as on SIGTERM. Operators
 * only; the request and its audit row commit together.
 */
export const drainWorkerAction = consoleAction({
  permission: "jobs:operate",
  audit: "worker.drain",
  input: z.strictObject({ id: z.string().min(1).max(256) }),
  change: async ({ tx, input: { id }, actor }) => {
    const r = await requestDrain(tx, id, actor().id, SILENT_AFTER_MS);
    if (r.outcome === "not_found") throw new AppError("not_found", "Nothing was changed: there is no such worker.");
    if (r.outcome === "not_running") {
      throw new AppError(
        "refused",
        `Nothing was changed: worker ${id} is not running (it stopped, or its heartbeat stopped), so there is nothing to drain.`,
      );
    }
    const message =
      r.outcome === "requested"
        ? `Asked worker ${id} to drain: within a second it stops claiming, finishes the jobs it holds and exits. npm start (or your process manager) starts a fresh worker in its place.`
        : `Worker ${id} was already asked to drain; it is finishing the jobs it holds.`;
    return {
      ok: true,
      message,
      reason: `${r.outcome === "requested" ? "asked" : "already asked"} worker ${id} to drain`,
      data: { requestedAt: r.at.toISOString() },
    };
  },
});

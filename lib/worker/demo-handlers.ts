import { PermanentError } from "./errors";
import type { Handlers, JobContext } from "./types";
import { sleep } from "./wakeup";

/** The demo's render runs out of memory now and then, more often at higher resolutions. */
export class OutOfMemoryError extends Error {
  override name = "OutOfMemoryError";
}
export class UpstreamTimeoutError extends Error {
  override name = "UpstreamTimeoutError";
}

const BYTES_PER_ROW = { csv: 120, jsonl: 210, parquet: 45 } as const;
const MS_PER_FRAME = { "720p": 0.5, "1080p": 1, "4k": 3 } as const;
const OOM_RATE = { "720p": 0.03, "1080p": 0.1, "4k": 0.3 } as const;
/** Rows written between two checkpoints: 200k rows take ~80 pages of 150–400ms, ~20s. */
const EXPORT_PAGE_ROWS = 2_500;
/** Render in slices of about this long, checkpointing between them. */
const RENDER_SLICE_MS = 250;
const UPSTREAM_TIMEOUT_MS = 1_500;

/**
 * Pretend to work for `ms`. Stops early, throwing the abort reason, when the
 * lease is lost, like a real handler passing `ctx.signal` to its I/O would.
 */
async function work(ctx: JobContext, ms: number) {
  await sleep(ms, ctx.signal);
  if (ctx.signal.aborted) throw ctx.signal.reason;
}

/**
 * Handlers for every type in JOB_TYPES, for the demo and the console's live
 * charts. `random` is injectable so tests can make them deterministic.
 */
export function createDemoHandlers(random: () => number = Math.random): Handlers {
  const between = (lo: number, hi: number) => lo + (hi - lo) * random();
  return {
    "export.tenant_data": async (ctx) => {
      const { dataset, rows, chunkRows, format } = ctx.job.params;
      let written = 0;
      let files = 0;
      while (written < rows) {
        const chunk = Math.min(chunkRows, rows - written);
        for (let page = 0; page < chunk; page += EXPORT_PAGE_ROWS) {
          ctx.progress(written + page, rows);
          await ctx.checkpoint();
          await work(ctx, between(150, 400));
        }
        written += chunk;
        files++;
        ctx.log.debug("export chunk written", { written, rows });
      }
      const url = `https://exports.jobscope.example/${ctx.job.tenantId}/${dataset}-${ctx.job.id}.${format}.zip`;
      return { rows, files, bytes: rows * BYTES_PER_ROW[format], url };
    },

    "media.render": async (ctx) => {
      const { assetId, frames, resolution } = ctx.job.params;
      const totalMs = frames * MS_PER_FRAME[resolution];
      // Decide up front whether (and how far in) this attempt runs out of memory.
      const oomAt = random() < OOM_RATE[resolution] ? totalMs * between(0.2, 0.9) : Infinity;
      for (let spent = 0; spent < totalMs; spent += RENDER_SLICE_MS) {
        ctx.progress(Math.floor(spent / MS_PER_FRAME[resolution]), frames);
        await ctx.checkpoint();
        if (spent >= oomAt) {
          throw new OutOfMemoryError(
            `render of ${assetId} at ${resolution} exceeded 4096 MiB at frame ${Math.floor(spent / MS_PER_FRAME[resolution])}`,
          );
        }
        await work(ctx, Math.min(RENDER_SLICE_MS, totalMs - spent));
      }
      return { assetId, frames, resolution, url: `https://media.jobscope.example/${assetId}-${resolution}.mp4` };
    },

    "report.generate": async (ctx) => {
      const { report, period } = ctx.job.params;
      await work(ctx, between(100, 500));
      return { report, period, rows: Math.floor(between(10, 5_000)), url: `https://reports.jobscope.example/${report}/${period}.pdf` };
    },

    "upstream.call": async (ctx) => {
      const { endpoint, timeoutRate, failFirstAttempts } = ctx.job.params;
      // A 4xx from the partner will not change on a retry.
      const status = /[?&]status=(4\d\d)\b/.exec(endpoint)?.[1];
      if (status) {
        await work(ctx, between(50, 200));
        throw new PermanentError(`${endpoint} answered ${status}`);
      }
      // A flaky partner that recovers: deterministic failures for the first attempts.
      if (ctx.attempt <= failFirstAttempts || random() < timeoutRate) {
        await work(ctx, UPSTREAM_TIMEOUT_MS);
        throw new UpstreamTimeoutError(`${endpoint} did not answer within ${UPSTREAM_TIMEOUT_MS}ms`);
      }
      const latencyMs = Math.round(between(80, 900));
      await work(ctx, latencyMs);
      return { endpoint, status: 200, latencyMs };
    },

    "poison.crash": async (ctx) => {
      if (!ctx.worker.allowProcessKill) {
        // In a test this would kill the test runner; only `npm run worker` allows it.
        throw new Error(`poison.crash would SIGKILL this process (${ctx.job.params.reason}); the worker was not created with allowProcessKill`);
      }
      ctx.log.warn("poison.crash: killing this worker process", { reason: ctx.job.params.reason });
      process.kill(process.pid, "SIGKILL");
      // SIGKILL is not delivered synchronously; never let the handler report.
      await new Promise<never>(() => {});
    },
  };
}

export const demoHandlers: Handlers = createDemoHandlers();

import type { Db } from "../db/client";
import { heartbeat } from "../jobs/heartbeat";
import { LeaseLost } from "./errors";
import type { Lease } from "./lease";

/**
 * One heartbeat statement for all of `leases`. The write path touches only
 * `heartbeat_at`, fenced by attempt and lease owner, and answers with each
 * job's state; a job missing from the answer is no longer ours, so its
 * handler is aborted and its attempt is never reported. Throws on database
 * errors: the caller logs them and beats again on its next tick.
 */
export async function beat(db: Db, workerId: string, leases: Lease[]): Promise<void> {
  const live = leases.filter((l) => !l.lost);
  if (live.length === 0) return;
  // Progress reported since the last beat rides on this write; if it fails, the next beat carries it.
  const reporting = new Set(live.filter((l) => l.progressDirty));
  for (const l of reporting) l.progressDirty = false;
  let seen;
  try {
    seen = await heartbeat(db, {
      workerId,
      jobs: live.map((l) => ({ id: l.id, attempt: l.attempt, ...(reporting.has(l) && { progress: l.progress! }) })),
    });
  } catch (e) {
    for (const l of reporting) l.progressDirty = true;
    throw e;
  }
  for (const l of live) {
    const now = seen.get(l.id);
    if (now) l.learn(now.state, now.stateVersion);
    else l.lose(new LeaseLost(l.id, l.attempt));
  }
}

/**
 * Run `tick` every `intervalMs`, one at a time: the next tick is scheduled when
 * the previous one ends, so a slow database never stacks heartbeats up.
 * `stop()` cancels the next tick and waits for the one in progress.
 */
export function everyInterval(intervalMs: number, tick: () => Promise<void>): { stop: () => Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let stopped = false;
  const schedule = () => {
    timer = setTimeout(() => {
      current = tick().finally(() => {
        if (!stopped) schedule();
      });
    }, intervalMs);
  };
  schedule();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}

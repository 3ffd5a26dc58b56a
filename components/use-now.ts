"use client";

import { useSyncExternalStore } from "react";

type Clock = { subscribe: (onTick: () => void) => () => void; read: () => number };

// Shared clocks, one per tick length, each with stable functions for useSyncExternalStore.
const clocks = new Map<number, Clock>();

function clockFor(tickMs: number): Clock {
  const existing = clocks.get(tickMs);
  if (existing) return existing;
  // 0 while nobody watches: the next reader starts from the current time, not a stale one.
  let now = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const listeners = new Set<() => void>();
  const clock: Clock = {
    read() {
      // A render before the first subscription (a client-side navigation) still gets a real time.
      if (now === 0) now = Date.now();
      return now;
    },
    subscribe(onTick) {
      listeners.add(onTick);
      if (!timer) {
        // React reads the snapshot again after subscribing, so the fresh time shows at once.
        now = Date.now();
        timer = setInterval(() => {
          now = Date.now();
          for (const l of listeners) l();
        }, tickMs);
      }
      return () => {
        listeners.delete(onTick);
        if (!listeners.size && timer) {
          clearInterval(timer);
          timer = undefined;
          now = 0;
        }
      };
    },
  };
  clocks.set(tickMs, clock);
  return clock;
}

/**
 * Milliseconds since the epoch, ticking every `tickMs` (one shared timer per tick length).
 *
 * `serverNow` is what the server rendering and hydration use. The default, 0, means
 * "no time known yet": pages hide ages and relative times until the browser ticks.
 * A page whose server render already shows them passes the time it rendered at,
 * so both renders agree.
 */
export function useNow({ tickMs = 1_000, serverNow = 0 }: { tickMs?: number; serverNow?: number } = {}): number {
  const clock = clockFor(tickMs);
  return useSyncExternalStore(clock.subscribe, clock.read, () => serverNow);
}

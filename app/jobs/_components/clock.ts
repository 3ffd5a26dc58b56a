import { useSyncExternalStore } from "react";

type Clock = { subscribe: (onTick: () => void) => () => void; read: () => number };

// Shared clocks, one per tick length, each with stable functions for useSyncExternalStore.
const clocks = new Map<number, Clock>();

function clockFor(tickMs: number): Clock {
  const existing = clocks.get(tickMs);
  if (existing) return existing;
  let now = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const listeners = new Set<() => void>();
  const clock: Clock = {
    read: () => now,
    subscribe(onTick) {
      listeners.add(onTick);
      if (!timer) {
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
        }
      };
    },
  };
  clocks.set(tickMs, clock);
  return clock;
}

const onServer = () => 0;

/**
 * Milliseconds since the epoch, ticking every `tickMs`. The server snapshot is 0:
 * server rendering knows no "now", so relative times and ages appear after hydration.
 */
export function useNow(tickMs = 1_000): number {
  const c = clockFor(tickMs);
  return useSyncExternalStore(c.subscribe, c.read, onServer);
}

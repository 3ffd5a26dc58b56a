"use client";

import { useSyncExternalStore } from "react";

// One once-a-second clock shared by every subscriber.
let clock = 0;
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(onTick: () => void) {
  listeners.add(onTick);
  // The clock may have stood still while nobody watched it: React reads the snapshot again after subscribing.
  if (timer === undefined) clock = Date.now();
  timer ??= setInterval(() => {
    clock = Date.now();
    listeners.forEach((l) => l());
  }, 1_000);
  return () => {
    listeners.delete(onTick);
    if (listeners.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

function snapshot() {
  if (clock === 0) clock = Date.now();
  return clock;
}

/**
 * The current time in epoch ms, ticking once a second. `serverNow` is what the
 * server rendered with; hydration uses it too, so both renders agree.
 */
export function useNow(serverNow: number): number {
  return useSyncExternalStore(subscribe, snapshot, () => serverNow);
}

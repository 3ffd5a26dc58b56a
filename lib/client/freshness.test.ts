import { describe, expect, it } from "vitest";
import { behindAfterMs, freshnessOf } from "./freshness";

describe("freshnessOf", () => {
  const at = 1_000_000;
  const base = { updatedAt: at, pollMs: 2_000, isPaused: false, isFailing: false };
  it("is live while the data is younger than two polls (at least a poll plus 3 s), behind after", () => {
    expect(behindAfterMs(2_000)).toBe(5_000);
    expect(behindAfterMs(10_000)).toBe(20_000);
    expect(freshnessOf({ ...base, now: at + 4_000 })).toBe("live");
    expect(freshnessOf({ ...base, now: at + 5_001 })).toBe("behind");
  });
  it("says paused or failing first, and nothing is late without a clock, data or a poll interval", () => {
    expect(freshnessOf({ ...base, now: at + 60_000, isPaused: true })).toBe("paused");
    expect(freshnessOf({ ...base, now: at + 60_000, isFailing: true })).toBe("failing");
    expect(freshnessOf({ ...base, now: 0 })).toBe("live");
    expect(freshnessOf({ ...base, updatedAt: null, now: at + 60_000 })).toBe("live");
    expect(freshnessOf({ ...base, pollMs: undefined, now: at + 60_000 })).toBe("live");
  });
});

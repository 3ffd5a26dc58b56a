import { describe, expect, it } from "vitest";
import type { Burn } from "./engines";
import { MIN_BURN_SECONDS, pairs, type Contender } from "./pairs";

/** A contender that burns at `rate` jobs/s and records the count of every burn it was asked for. */
function contender(label: string, rate: number) {
  const asked: number[] = [];
  const c: Contender = {
    label,
    run: async (jobs) => {
      asked.push(jobs);
      return {
        system: label,
        jobs,
        seconds: jobs / rate,
        jobsPerSec: rate,
        walPerJob: 0,
        heapRowsPerJob: null,
        btreeEntriesPerJob: null,
        pgCpuUsPerJob: null,
        nodeCpuUsPerJob: 0,
        kept: "",
      } satisfies Burn;
    },
  };
  return { c, asked };
}

const quiet = { burn: (_label: string, f: () => Promise<Burn>) => f(), log: () => {} };

describe("pairs", () => {
  it("sizes the counted burns so that the fastest warm-up would take at least MIN_BURN_SECONDS", async () => {
    const fast = contender("fast", 55_500);
    const slow = contender("slow", 20_000);
    const r = await pairs([fast.c, slow.c], 10_000, 3, quiet.burn, quiet.log);
    const sized = Math.ceil((55_500 * MIN_BURN_SECONDS) / 1000) * 1000;
    expect(sized).toBeGreaterThan(10_000);
    // One warm-up of the profile's size, then every counted burn of each system at the same, larger count.
    expect(fast.asked).toEqual([2500, sized, sized, sized]);
    expect(slow.asked).toEqual([2500, sized, sized, sized]);
    expect(r.ratio(0)).toMatchObject({ median: 55_500 / 20_000, n: 3 });
  });

  it("keeps the profile's count where the burns last long enough, and in a single round (smoke) after its warm-up", async () => {
    const slow = contender("slow", 2_000);
    await pairs([slow.c, contender("peer", 2_500).c], 10_000, 2, quiet.burn, quiet.log);
    expect(slow.asked).toEqual([2500, 10_000, 10_000]);
    const once = contender("once", 1_000_000);
    await pairs([once.c], 10_000, 1, quiet.burn, quiet.log, 0);
    expect(once.asked).toEqual([2500, 10_000]);
  });

  it("without a warm-up (the factor table), burns only the counted pairs, at the caller's count, alternating who goes first", async () => {
    const order: string[] = [];
    const record = (label: string, f: () => Promise<Burn>) => (order.push(label), f());
    const fast = contender("final", 90_000);
    const slow = contender("changed", 45_000);
    const r = await pairs([fast.c, slow.c], 10_000, 3, record, quiet.log, 0, false);
    expect(fast.asked).toEqual([10_000, 10_000, 10_000]);
    expect(order.map((l) => l.split(" ")[0])).toEqual(["final", "changed", "changed", "final", "final", "changed"]);
    expect(r.ratio(1)).toMatchObject({ median: 0.5, min: 0.5, max: 0.5, n: 3 });
  });
});

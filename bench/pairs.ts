import type { Burn } from "./engines";
import { fmt } from "./lib";

/** A system in a burn-down comparison: how to burn `jobs` jobs on a fresh database. */
export type Contender = { label: string; run: (jobs: number) => Promise<Burn> };

/** A ratio between two systems in one run: the median over alternating pairs, and its range. */
export type Ratio = { median: number; min: number; max: number; n: number };

export const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export const formatRatio = (x: Ratio) =>
  x.n > 1 ? `${fmt(x.median, 2)}× (${fmt(x.min, 2)}–${fmt(x.max, 2)}, median of ${x.n} pairs)` : `${fmt(x.median, 2)}×`;

/**
 * A counted burn lasts at least about this long: sized from the fastest warm-up burn's rate. A burn
 * of a fixed count finishes in a quarter of a second on a fast machine, and then its rate is mostly
 * the systems' start (connections, plans, the first rounds) rather than their steady state
 * (docs/benchmarks.md, "How each figure is measured").
 */
export const MIN_BURN_SECONDS = 1;

/**
 * Burn every contender `rounds` times, alternating who goes first, after one warm-up burn of each
 * that is not counted (a cold server, cold caches and an unplanned statement read slower, and the
 * first system measured paid for all of them). Each counted burn has `jobs` jobs, or, over several
 * rounds, more where the fastest warm-up would finish them in under `MIN_BURN_SECONDS`. Each contender's figure is its
 * median burn; each ratio to the peer (`contenders[peer]`) is the median of the ratios within a
 * round, so a round the shared machine slowed down slows both sides of its ratio.
 */
export async function pairs(
  contenders: readonly Contender[],
  jobs: number,
  rounds: number,
  burn: (label: string, f: () => Promise<Burn>) => Promise<Burn>,
  log: (s: string) => void,
  peer = 1,
  /** false: the caller warmed the server and the systems up, and sized `jobs` (the factor table). */
  warmUp = true,
): Promise<{ medians: Burn[]; ratio: (i: number) => Ratio | null }> {
  if (warmUp) {
    log(`warm-up: one burn of each, not counted`);
    let fastest = 0;
    for (const c of contenders) {
      const w = await burn(`${c.label} (warm-up)`, () => c.run(Math.max(2000, Math.round(jobs / 4))));
      fastest = Math.max(fastest, w.jobsPerSec);
    }
    // A single round (the smoke profile) is a check that the systems run, kept small.
    const sized = Math.ceil((fastest * MIN_BURN_SECONDS) / 1000) * 1000;
    if (rounds > 1 && sized > jobs) {
      log(`  ${fmt(sized)} jobs a burn rather than ${fmt(jobs)}: the fastest warm-up ran ${fmt(fastest)} jobs/s`);
      jobs = sized;
    }
  }
  const burns: Burn[][] = contenders.map(() => []);
  for (let k = 0; k < rounds; k++) {
    const order = contenders.map((_, i) => i);
    if (k % 2 === 1) order.reverse();
    for (const i of order)
      burns[i]!.push(await burn(`${contenders[i]!.label}${rounds > 1 ? ` (round ${k + 1} of ${rounds})` : ""}`, () => contenders[i]!.run(jobs)));
  }
  const medians = burns.map((bs) => {
    const m = median(bs.map((b) => b.jobsPerSec));
    // The burn closest to the median stands for the system (an even count's median is between two).
    return bs.reduce((a, b) => (Math.abs(b.jobsPerSec - m) < Math.abs(a.jobsPerSec - m) ? b : a));
  });
  const ratio = (i: number): Ratio | null => {
    if (i === peer || !burns[i] || !burns[peer]) return null;
    const xs = burns[i]!.map((b, k) => b.jobsPerSec / burns[peer]![k]!.jobsPerSec);
    const x = { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length };
    log(`  ${contenders[i]!.label} / ${contenders[peer]!.label}: ${formatRatio(x)}; rounds ${xs.map((v) => fmt(v, 2)).join(", ")}`);
    return x;
  };
  return { medians, ratio };
}

import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { Rounds } from "./rounds";
import { freshQueue, submit } from "./test-support";

// The worker's statements (lib/worker/rounds.ts): how many may carry a claim at once.
const t = setupTestDb({ max: 6 });

async function claimWith(claimPipelines: number) {
  const queue = freshQueue();
  for (let i = 0; i < 6; i++) await submit(t.pool, queue);
  const claimed: string[] = [];
  const rounds = new Rounds({
    db: t.pool,
    workerId: `w-${queue}`,
    queues: [queue],
    pipelines: 3,
    maxBatch: 2,
    claimPipelines,
    wanted: () => 2,
    onClaimed: (jobs) => claimed.push(...jobs.map((j) => j.id)),
    onClaimError: (e) => {
      throw e;
    },
  });
  rounds.kick();
  const inFlight = rounds.claiming;
  rounds.stopClaiming();
  await rounds.settled();
  return { inFlight, claimed };
}

describe("claims in flight", () => {
  it("sends one claim at a time when claimPipelines is 1, though more pipelines are free", async () => {
    const { inFlight, claimed } = await claimWith(1);
    expect(inFlight).toBe(2);
    expect(claimed).toHaveLength(2);
  });

  it("sends a claim in every free pipeline when allowed, and no job is claimed twice", async () => {
    const { inFlight, claimed } = await claimWith(3);
    expect(inFlight).toBe(6);
    expect(claimed).toHaveLength(6);
    expect(new Set(claimed).size).toBe(6);
  });
});

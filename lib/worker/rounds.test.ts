import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { execute } from "../db/drizzle";
import { setupTestDb } from "../db/test-db";
import type { ClaimedJob } from "../jobs/types";
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

// One job per statement (docs/decisions.md, "One job per statement"): an unbatched worker's lone
// report goes in as scalars and its job is found by `id = $n`; a batched worker's lone report keeps
// the arrays its batches use (one statement, one plan per connection).
describe("a lone report", () => {
  async function reportOne(maxBatch: number) {
    const queue = freshQueue();
    await submit(t.pool, queue);
    const db = t.connect({ max: 1 }); // one connection: its prepared statements are the rounds'
    const claimed: ClaimedJob[] = [];
    const rounds = new Rounds({
      db,
      workerId: `w-${queue}`,
      queues: [queue],
      pipelines: 1,
      maxBatch,
      claimPipelines: 1,
      wanted: () => (claimed.length ? 0 : 1),
      onClaimed: (jobs) => claimed.push(...jobs),
      onClaimError: (e) => {
        throw e;
      },
    });
    rounds.kick();
    await rounds.settled();
    const [job] = claimed;
    const applied = await rounds.add({
      jobId: job!.id,
      event: "finish",
      actor: { kind: "worker", id: `w-${queue}` },
      attempt: job!.attempt,
      expected: { state: job!.state, version: job!.stateVersion },
    });
    expect(applied?.state).toBe("succeeded");
    const statements = await execute<{ statement: string }>(
      db,
      sql`SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%DELETE FROM jobs_live%' AND statement NOT LIKE '%pg_prepared%'`,
    );
    expect(statements).toHaveLength(1);
    return statements[0]!.statement;
  }

  it("goes in as scalars from an unbatched worker, and as a batch's arrays from a batched one", async () => {
    const one = await reportOne(1);
    expect(one).toMatch(/WHERE l\.id = \$\d+::uuid AND/);
    expect(one).not.toMatch(/unnest\(\$\d+::uuid\[\]/);
    const batched = await reportOne(500);
    expect(batched).toMatch(/WHERE l\.id = ANY\(\$\d+::uuid\[\]\)/);
    expect(batched).toMatch(/unnest\(\$\d+::uuid\[\]/);
  });
});

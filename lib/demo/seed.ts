import type { Db } from "../db/client";
import type { EnqueueInput } from "../jobs/enqueue";
import { isJobType } from "../jobs/job-types";
import type { Actor } from "../jobs/types";
import { History, OPERATOR } from "./history";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

export const DEMO_TENANTS = [
  { id: "acme", name: "Acme Corp" },
  { id: "globex", name: "Globex" },
  { id: "initech", name: "Initech" },
  { id: "umbrella", name: "Umbrella Health" },
] as const;

const MIN = 60_000;
const HOUR = 60 * MIN;

/** A small deterministic PRNG (mulberry32), so every demo database tells the same stories. */
function prng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const between = (r: Rand, lo: number, hi: number) => Math.round(lo + r() * (hi - lo));
const workerId = (r: Rand) => `w-${String(between(r, 1, 16)).padStart(2, "0")}`;
const TIMEOUT = { class: "UpstreamTimeout", message: "POST https://partner.example/api/v2/sync timed out after 30000 ms" };
const OOM = { class: "OutOfMemoryError", message: "render worker exceeded its 2 GiB memory limit at frame 4812" };
const GONE = { class: "PermanentError", message: "partner returned 410 Gone for account 8812" };
/** The error that kills a job at once: renders run out of memory, the rest hit a permanent refusal. */
const fatalFor = (type: string) => (type === "media.render" ? OOM : GONE);

export function randomJob(r: Rand, tenantId: string): EnqueueInput {
  const kind = r();
  if (kind < 0.25)
    return {
      tenantId,
      type: "export.tenant_data",
      params: { dataset: pick(r, ["orders", "customers", "invoices", "events"] as const), rows: between(r, 10_000, 400_000) },
    };
  if (kind < 0.45) return { tenantId, type: "media.render", params: { assetId: `asset-${between(r, 1000, 9999)}`, frames: between(r, 100, 6000) } };
  if (kind < 0.75)
    return {
      tenantId,
      type: "report.generate",
      params: { report: pick(r, ["daily_usage", "billing_summary", "audit_trail"] as const), period: "2026-11" },
    };
  return { tenantId, type: "upstream.call", params: { endpoint: "https://partner.example/api/v2/sync", timeoutRate: 0.3 } };
}

/** One job's story, chosen by weight: where a real system's histories come from. */
async function story(h: History, r: Rand, type: string) {
  const x = r();
  const run = between(r, 2_000, 90_000);
  if (x < 0.55) return (await h.run(workerId(r), between(r, 200, 20_000))).step("finish", run, undefined, { result: { ok: true } });
  if (x < 0.65) {
    await h.run(workerId(r), between(r, 200, 5_000));
    await h.fail(between(r, 1_000, 30_000), TIMEOUT, between(r, 2_000, 60_000));
    return (await h.run(workerId(r), between(r, 100, 2_000))).step("finish", run);
  }
  if (x < 0.71) {
    await h.run(workerId(r), between(r, 200, 5_000));
    await h.loseLease(between(r, 10_000, 20 * MIN));
    return (await h.run(workerId(r), between(r, 100, 5_000))).step("finish", run);
  }
  if (x < 0.76) {
    // Exhausts its attempts on timeouts, then is given up: dead.
    for (let i = 0; ; i++) {
      await h.run(workerId(r), between(r, 100, 3_000));
      if (h.attemptsLeft === 0) return h.step("abandon", between(r, 1_000, 30_000), undefined, { error: TIMEOUT });
      await h.fail(between(r, 1_000, 30_000), TIMEOUT, 2_000 * 2 ** i);
    }
  }
  if (x < 0.79) {
    await h.run(workerId(r), between(r, 100, 3_000));
    return h.step("abandon", between(r, 5_000, 60_000), undefined, { error: fatalFor(type) });
  }
  if (x < 0.83) return h.step("cancel", between(r, 1_000, 10 * MIN), { kind: "tenant", id: "user@tenant" });
  if (x < 0.86) {
    await h.run(workerId(r), between(r, 100, 3_000));
    await h.step("cancel", between(r, 5_000, 60_000), OPERATOR);
    return h.step("stop", between(r, 200, 3_000));
  }
  if (x < 0.89) {
    // Dead, then replayed by an operator after the outage, then fine.
    await h.run(workerId(r), between(r, 100, 3_000));
    await h.step("abandon", between(r, 1_000, 30_000), undefined, { error: GONE });
    await h.step("replay", between(r, 10 * MIN, 2 * HOUR), OPERATOR);
    return (await h.run(workerId(r), between(r, 100, 3_000))).step("finish", run);
  }
  if (x < 0.92) {
    await h.run(workerId(r), between(r, 100, 3_000));
    return h.fail(between(r, 1_000, 30_000), TIMEOUT, 24 * HOUR, true); // still waiting for its retry
  }
  if (x < 0.94) {
    await h.run(workerId(r), between(r, 100, 3_000));
    await h.step("pause", between(r, 5_000, 60_000), OPERATOR); // held by an operator
    return r() < 0.3 ? h.step("abandon", between(r, MIN, HOUR), OPERATOR) : h;
  }
  if (x < 0.96) {
    await h.run(workerId(r), between(r, 100, 3_000));
    await h.fail(between(r, 1_000, 30_000), TIMEOUT, 24 * HOUR, true);
    return h.step("abandon", between(r, MIN, HOUR), OPERATOR); // an operator gave up on it
  }
  return h; // still queued
}

/** A job that kills its worker on every attempt: each run ends lease_expired until it is dead. */
async function poisonStory(h: History, r: Rand) {
  for (let i = 0; i < 3; i++) {
    await h.run(workerId(r), between(r, 100, 2_000));
    await h.loseLease(between(r, 500, 3_000));
  }
  return h;
}

/**
 * The export support asks about: submitted four hours ago behind a backlog of
 * exports, its first attempt lost when w-14 stopped heart-beating after 38 min,
 * two upstream timeouts with backoff, and then it finished.
 */
async function slowExport(db: Db, now: number) {
  const actor: Actor = { kind: "tenant", id: "dana@acme.example" };
  const h = new History(db, now - 4 * HOUR - 5 * MIN);
  await h.submit(
    { tenantId: "acme", type: "export.tenant_data", params: { dataset: "orders", rows: 2_400_000 }, idempotencyKey: "demo-slow-export" },
    actor,
  );
  await h.run("w-14", 52 * MIN);
  await h.loseLease(38 * MIN, 40_000);
  await h.run("w-03", 2 * MIN);
  await h.fail(6 * MIN, TIMEOUT, 20 * MIN);
  await h.run("w-07", 30_000);
  await h.fail(9 * MIN, TIMEOUT, 40 * MIN);
  await h.run("w-05", 45_000);
  await h.step("finish", 21 * MIN, undefined, { result: { rows: 2_400_000, files: 24, url: "s3://exports/acme/orders-2026-11.csv.gz" } });
  return h.id;
}

async function pool<T>(items: readonly T[], width: number, fn: (item: T, i: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

/**
 * Seed the demo: tenants, and `jobs` histories over the past day written
 * through the write path, ending in every state. Returns the slow export's id.
 */
export async function seedDemo(db: Db, opts: { jobs?: number; log?: (s: string) => void } = {}) {
  const total = opts.jobs ?? 3000;
  const now = Date.now();
  for (const t of DEMO_TENANTS) await execute(db, sql`INSERT INTO tenants (id, name) VALUES (${t.id}, ${t.name}) ON CONFLICT DO NOTHING`);
  const slow = await slowExport(db, now);
  const r = prng(20261129);
  const specs = Array.from({ length: total }, (_, i) => ({
    tenant: pick(r, DEMO_TENANTS).id,
    // Poison jobs exist only where the demo's job types do (JOBSCOPE_DEMO=1, lib/jobs/job-types.ts).
    poison: i % 150 === 7 && isJobType("poison.crash"),
    seed: Math.floor(r() * 2 ** 31),
    // Histories start across the past day and take at most a few hours, so they end before now.
    start: now - between(r, 4 * HOUR, 24 * HOUR),
  }));
  await pool(specs, 4, async (s, i) => {
    const rr = prng(s.seed);
    const h = new History(db, s.start);
    const actor: Actor = { kind: "api", id: `api-key-${s.tenant}` };
    if (s.poison) {
      await h.submit({ tenantId: s.tenant, type: "poison.crash", params: {} }, actor);
      await poisonStory(h, rr);
    } else {
      const input = randomJob(rr, s.tenant);
      await h.submit(input, actor);
      await story(h, rr, input.type);
    }
    if ((i + 1) % 500 === 0) opts.log?.(`seeded ${i + 1} of ${total} job histories`);
  });
  // Fresh statistics for the planner before the console's first queries.
  await execute(db, sql`ANALYZE job_catalog, jobs_live, job_attempts, job_log`);
  return { slowExportId: slow };
}

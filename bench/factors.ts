// The A/B study of the hot path: the burn-down of the final design against the same with
// ONE factor changed back (or forward), in alternating pairs (final, changed; then changed, final…)
// after one warm-up burn, so the table shows what each factor multiplies throughput by on this
// machine today as the median of the pairs' ratios, with their range. (With one burn each, the
// table once read 1.36× without the finished tabs' indexes, where pairs read 1.04–1.09×.)
// `npm run bench -- --only factors [--profile quick|full]`.
import { sql } from "drizzle-orm";
import { closeDb, connect } from "../lib/db/client";
import { prepared, execute } from "../lib/db/drizzle";
import { claimCtes, claimValues, CLAIMED_COLUMNS } from "../lib/jobs/claim";
import { markCte } from "../lib/jobs/write";
import { insertQueuedJobs } from "../lib/jobs/direct-write";
import { PgDialect } from "drizzle-orm/pg-core";
import { fillPlaceholders } from "drizzle-orm/sql";
import { burnJobs, burnJobscope, type Burn } from "./engines";
import { prefillJobscope } from "./generate";
import { burnSkeleton } from "./skeleton";
import { checkpoint, fmt, freshDb } from "./lib";
import { pairs, type Ratio } from "./pairs";

/** A factor's median burn, the final design's median burn in the same pairs, and their ratio. */
export type Factor = { name: string; what: string; burn: Burn; final: Burn; vsFinal: Ratio };

/** Pairs per factor: a median needs three. */
const ROUNDS = 3;

type Variant = {
  name: string;
  what: string;
  /** DDL on the fresh, prefilled database before the burn. */
  ddl?: string[];
  /** Prefill with random (version 4) ids instead of time-ordered ones. */
  randomIds?: boolean;
  worker?: { pipelines?: number; claimPipelines?: number; maxBatch?: number; prefetch?: number };
  /** Burn with bench/skeleton.ts (the tables alone, one hand-written statement) instead of the worker. */
  skeleton?: boolean;
};

// The two index entries a succeeded attempt takes for the console's finished tabs (staff, tenant).
const DROP_FINISHED_TAB_INDEXES = ["DROP INDEX job_attempts_final_idx", "DROP INDEX job_attempts_tenant_succeeded_idx"];

export const VARIANTS: Variant[] = [
  { name: "final", what: "the design as shipped: 2 pipelines × 500, narrow live row, BRIN history, WHEN-clause guard, time-ordered ids" },
  {
    name: "serial, handler-count claims",
    what: "claims only its free slots (24) and one statement at a time: the runtime before it claimed ahead",
    worker: { pipelines: 1, maxBatch: 24, prefetch: 0 },
  },
  { name: "one pipeline", what: "one statement in flight instead of two", worker: { pipelines: 1 } },
  {
    name: "one claim in flight",
    what: "two statements in flight, but only one of them claims (the others carry reports): the runtime before the claim moved ahead of the reports",
    worker: { claimPipelines: 1 },
  },
  { name: "four pipelines", what: "four statements in flight instead of two, all claiming", worker: { pipelines: 4 } },
  { name: "batches of 100", what: "at most 100 reports and 100 claims per statement instead of 500", worker: { maxBatch: 100 } },
  {
    name: "console indexes on the live row",
    what: "the seven keyset indexes the console had on the hot row (every transition writes an entry in each)",
    ddl: [
      "CREATE INDEX ON jobs_live (state, created_at DESC, id DESC)",
      "CREATE INDEX ON jobs_live (tenant_id, created_at DESC, id DESC)",
      "CREATE INDEX ON jobs_live (created_at DESC, id DESC)",
      "CREATE INDEX ON jobs_live (type, created_at DESC, id DESC)",
      "CREATE INDEX ON jobs_live (queue, created_at DESC, id DESC)",
      "CREATE INDEX ON jobs_live (tenant_id, state)",
      "CREATE INDEX ON jobs_live (updated_at DESC, id DESC)",
    ],
  },
  {
    name: "btree history indexes",
    what: "btrees on job_attempts (finished_at) and (worker_id, finished_at) instead of the BRIN and the partial trouble index",
    ddl: ["CREATE INDEX ON job_attempts (finished_at DESC)", "CREATE INDEX ON job_attempts (worker_id, finished_at DESC)"],
  },
  {
    name: "plpgsql guard per row",
    what: "the direct-write guard as a plpgsql call on every row written (0001's trigger) instead of a WHEN clause",
    ddl: [
      `CREATE FUNCTION bench_guard() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
         IF coalesce(current_setting('jobscope.write_path', true), '') <> 'on' THEN RAISE EXCEPTION 'guard'; END IF;
         RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END; END $$`,
      "DROP TRIGGER jobs_live_write_path ON jobs_live",
      "DROP TRIGGER jobs_live_write_path_update ON jobs_live",
      "DROP TRIGGER jobs_live_write_path_delete ON jobs_live",
      "DROP TRIGGER job_attempts_write_path ON job_attempts",
      "CREATE TRIGGER g1 AFTER INSERT OR DELETE ON jobs_live FOR EACH ROW EXECUTE FUNCTION bench_guard()",
      "CREATE TRIGGER g2 AFTER UPDATE OF state, state_version, attempt, max_attempts, lease_owner ON jobs_live FOR EACH ROW EXECUTE FUNCTION bench_guard()",
      "CREATE TRIGGER g3 BEFORE INSERT ON job_attempts FOR EACH ROW EXECUTE FUNCTION bench_guard()",
    ],
  },
  {
    name: "no tenant check",
    what: "not adoptable (a history row's tenant must be its job's: docs/decisions.md): what the check of a round's attempt rows costs",
    ddl: ["DROP TRIGGER job_attempts_tenant_check ON job_attempts"],
  },
  { name: "random ids", what: "UUID version 4 ids instead of time-ordered ones (version 7)", randomIds: true },
  {
    name: "no finished-tab indexes",
    what: "not adoptable (the console's succeeded, dead and cancelled tabs read them at 10M jobs): what their two entries per finished job cost",
    ddl: DROP_FINISHED_TAB_INDEXES,
  },
  {
    name: "skeleton: the tables alone",
    what: "not a product: the same tables and indexes written by one hand-written round statement, with the triggers off (no guard, no tenant check), no handlers and no runtime (bench/skeleton.ts): the data model's ceiling here",
    skeleton: true,
  },
  {
    name: "skeleton, no finished-tab indexes",
    what: "the skeleton without the two finished-tab indexes",
    skeleton: true,
    ddl: DROP_FINISHED_TAB_INDEXES,
  },
  {
    name: "synchronous_commit off",
    what: "not adopted (a crash could lose acknowledged transitions): how much fsync costs here",
    ddl: ["ALTER DATABASE {db} SET synchronous_commit = off"],
  },
];

async function prefillRandomIds(url: string, n: number) {
  const db = connect(url, { max: 1 });
  try {
    await insertQueuedJobs(db, { n, queue: "bench", randomIds: true });
    await execute(db, sql`VACUUM ANALYZE jobs_live, job_catalog`);
  } finally {
    await closeDb(db);
  }
}

/** One burn of a variant on a fresh, prefilled database, after a checkpoint. */
async function burnVariant(adminUrl: string, v: Variant, n: number): Promise<Burn> {
  const name = "bench_f_js";
  const url = await freshDb(adminUrl, name, { jobscope: true });
  // The burn-down's warm-up jobs, the timed ones and its tail.
  const total = burnJobs(n).all;
  if (v.randomIds) await prefillRandomIds(url, total);
  else await prefillJobscope(url, total);
  if (v.ddl) {
    const admin = connect(url, { max: 1 });
    for (const d of v.ddl) await execute(admin, sql.raw(d.replace("{db}", `"${name}"`)));
    await execute(admin, sql`ANALYZE`);
    await closeDb(admin);
  }
  await checkpoint(adminUrl);
  return v.skeleton
    ? await burnSkeleton(url, n, v.name)
    : await burnJobscope(url, n, { concurrency: 24, batch: true, label: v.name, prefilled: true, worker: v.worker });
}

export async function runFactors(adminUrl: string, n: number, log: (s: string) => void): Promise<Factor[]> {
  const [final, ...changed] = VARIANTS;
  log(`factors: one burn of the final design to warm up, not counted`);
  await burnVariant(adminUrl, final!, n);
  const burn = async (label: string, f: () => Promise<Burn>) => {
    const b = await f();
    log(`  ${label}: ${fmt(b.jobsPerSec)} jobs/s`);
    return b;
  };
  const out: Factor[] = [];
  for (const v of changed) {
    log(`factor: ${v.name}…`);
    const contenders = [final!, v].map((x) => ({ label: x.name, run: (jobs: number) => burnVariant(adminUrl, x, jobs) }));
    const { medians, ratio } = await pairs(contenders, n, ROUNDS, burn, log, 0, false);
    out.push({ name: v.name, what: v.what, burn: medians[1]!, final: medians[0]!, vsFinal: ratio(1)! });
  }
  return out;
}

/**
 * Drizzle on the hot path: the claim statement run N times through `prepared()` (drizzle's `sql`
 * template compiled once, its prepared query) and through postgres.js directly with the same text
 * and values. Node CPU per call; the database does the same work in both.
 */
export async function drizzleOverhead(adminUrl: string, calls: number): Promise<{ drizzleUs: number; directUs: number }> {
  const url = await freshDb(adminUrl, "bench_drizzle", { jobscope: true });
  const db = connect(url, { max: 1 });
  try {
    const values = claimValues({ workerId: "w", queues: ["nothing-here"], limit: 500, startNow: 500 });
    const build = () => sql`WITH ${markCte}, ${claimCtes()} SELECT ${CLAIMED_COLUMNS} FROM claimed`;
    const viaDrizzle = prepared(db, "bench_claim", build);
    const q = new PgDialect().sqlToQuery(build());
    const params = fillPlaceholders(q.params, values) as never[];
    const time = async (f: () => Promise<unknown>) => {
      for (let i = 0; i < 50; i++) await f();
      const c0 = process.cpuUsage();
      for (let i = 0; i < calls; i++) await f();
      const c = process.cpuUsage(c0);
      return (c.user + c.system) / calls;
    };
    // The driver itself, as the baseline drizzle is measured against.
    const directUs = await time(() => db.$client.unsafe(q.sql, params, { prepare: true }));
    const drizzleUs = await time(() => viaDrizzle(values));
    return { drizzleUs, directUs };
  } finally {
    await closeDb(db);
  }
}

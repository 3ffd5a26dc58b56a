import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { heartbeat } from "./heartbeat";
import { checkJobIntegrity, getJob, newJob, operator, rowLocksDuring, runJob } from "./test-helpers";
import { transition } from "./transition";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const ROOT = path.resolve(__dirname, "../..");
// Build output, data and tool folders (.next*, .data, .git) are not source.
const SKIP = (name: string) => name.startsWith(".") || ["node_modules", "test-results", "playwright-report"].includes(name);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP(name)) continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (/\.(ts|tsx|js|mjs|sql)$/.test(name)) out.push(path.relative(ROOT, p));
  }
  return out;
}

// Anything that could write a job's state or history: raw SQL, drizzle's builders, or the triggers' bypass mark.
const TABLES = "(jobs_live|job_catalog|job_attempts|job_log)";
const WRITES_JOBS = [
  new RegExp(`\\bupdate\\s+${TABLES}\\b`, "i"),
  new RegExp(`\\binsert\\s+into\\s+${TABLES}\\b`, "i"),
  new RegExp(`\\bdelete\\s+from\\s+${TABLES}\\b`, "i"),
  /\.(update|insert|delete)\(\s*(jobsLive|jobCatalog|jobAttempts|jobLog)\s*\)/,
  /jobscope\.write_path/,
];
// The guarded write and its builder, the claim, the submit, the heartbeat; the loaders' mark; the benchmark's bulk generator.
const WRITE_PATH = new Set([
  "lib/jobs/write.ts",
  "lib/jobs/direct-write.ts",
  "lib/jobs/claim.ts",
  "lib/jobs/enqueue.ts",
  "lib/jobs/heartbeat.ts",
  "bench/generate.ts",
]);
// Files that mention the pattern without writing through it: the migrations that define the guards and tests that attack them.
// Also the insight benchmark's bulk loader of synthetic histories (bench/insight-*.ts, docs/insight.md), which never runs against a live system.
// And the retention code and its benchmark, which delete finished history under their own mark (lib/retention, scripts/retention-bench.ts),
// and the A/B benchmark's loader of jobs with random ids (bench/factors.ts), and its skeleton (bench/skeleton.ts), which
// writes the engine's tables with their triggers off, in a database of its own, to measure what the rows alone cost.
const BENCH_LOADERS = new Set([
  "bench/insight-generate.ts",
  "bench/insight-explain.ts",
  "bench/factors.ts",
  "bench/skeleton.ts",
  "scripts/retention-bench.ts",
  "lib/retention/retention.ts",
]);
const ALLOWED = (f: string) => f.startsWith("drizzle/") || f.endsWith(".test.ts") || f.endsWith(".spec.ts") || BENCH_LOADERS.has(f);

describe("one write path", () => {
  it("no code outside lib/jobs writes a job's state or history", () => {
    const files = sourceFiles(ROOT);
    expect(files).toContain("lib/jobs/write.ts");
    const offenders = files
      .filter((f) => !WRITE_PATH.has(f) && !ALLOWED(f))
      .filter((f) => WRITES_JOBS.some((re) => re.test(readFileSync(path.join(ROOT, f), "utf8"))));
    expect(offenders).toEqual([]);
  });

  it("only the guarded write's builder and the loaders' transaction set the mark", () => {
    const markers = sourceFiles(ROOT)
      .filter((f) => !ALLOWED(f))
      .filter((f) => readFileSync(path.join(ROOT, f), "utf8").includes("set_config('jobscope.write_path'"));
    expect(markers.sort()).toEqual(["lib/jobs/direct-write.ts", "lib/jobs/write.ts"]);
  });

  describe("and the database enforces it", () => {
    const t = setupTestDb();

    it("refuses a state change, a version change, an insert and a delete from outside the write path", async () => {
      const job = await newJob(t.pool);
      const refused = /only through the write path/;
      // A row that also breaks a CHECK constraint is refused by the constraint first (the guard of an
      // update or a delete fires after the row's checks): this one passes them.
      await expect(execute(t.pool, sql`UPDATE jobs_live SET state = 'retry_wait', state_version = 1 WHERE id = ${job.id}`)).rejects.toThrow(refused);
      await expect(execute(t.pool, sql`UPDATE jobs_live SET state_version = 5 WHERE id = ${job.id}`)).rejects.toThrow(refused);
      await expect(execute(t.pool, sql`DELETE FROM jobs_live WHERE id = ${job.id}`)).rejects.toThrow(refused);
      await expect(
        execute(
          t.pool,
          sql`INSERT INTO jobs_live (id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version, not_before, params, created_at, updated_at)
              VALUES (gen_random_uuid(), 'acme', 'report.generate', 'q', 0, 'queued', 0, 1, 0, now(), '{}', now(), now())`,
        ),
      ).rejects.toThrow(refused);
      await expect(
        execute(
          t.pool,
          sql`INSERT INTO job_log (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, max_attempts)
              VALUES (${job.id}, 'acme', 'cancel', 'queued', 'cancelled', 'operator', 'x', 0, 1, 3)`,
        ),
      ).rejects.toThrow(refused);
      // The read model is views: nothing writes through them.
      await expect(execute(t.pool, sql`UPDATE jobs SET state = 'paused' WHERE id = ${job.id}`)).rejects.toThrow(/cannot update view/);
      expect(await getJob(t.pool, job.id)).toMatchObject({ state: "queued", stateVersion: 0 });
    });

    // A BEFORE row trigger on UPDATE or DELETE locks the row before the write (a WAL record of its
    // own per row, whatever its WHEN clause says): the guards are AFTER triggers (drizzle/0030).
    it("takes no row lock of its own for a move, a finish or a heartbeat", async () => {
      const locks = async (write: () => Promise<unknown>) => (await rowLocksDuring(t.pool, "jobs_live", write)).locks;
      const queued = await newJob(t.pool);
      // Each write applied (a delete of the live row, a heartbeat, an update), and none locked a row.
      expect(await locks(() => transition(t.pool, { jobId: queued.id, event: "cancel", actor: operator }))).toBe(0);
      expect(await getJob(t.pool, queued.id)).toMatchObject({ state: "cancelled", stateVersion: 1 });
      const running = await runJob(t.pool, await newJob(t.pool));
      const beat = await rowLocksDuring(t.pool, "jobs_live", () => heartbeat(t.pool, { workerId: "w-1", jobs: [{ id: running.id, attempt: 1 }] }));
      expect(beat).toMatchObject({ locks: 0, result: { size: 1 } });
      expect(await locks(() => transition(t.pool, { jobId: running.id, event: "cancel", actor: operator }))).toBe(0);
      expect(await getJob(t.pool, running.id)).toMatchObject({ state: "cancelling", stateVersion: running.stateVersion + 1 });
    });

    it("a write that sets the mark itself and skips a version is caught by the integrity check", async () => {
      const job = await newJob(t.pool);
      await t.pool.transaction(async (tx) => {
        await execute(tx, sql`SELECT set_config('jobscope.write_path', 'on', true)`);
        await execute(tx, sql`UPDATE jobs_live SET state_version = 2 WHERE id = ${job.id}`);
      });
      expect((await checkJobIntegrity(t.pool, job.id)).join()).toMatch(/rebuil/);
    });

    it("lets the heartbeat through, and keeps the history append-only", async () => {
      const job = await runJob(t.pool, await newJob(t.pool));
      expect((await heartbeat(t.pool, { workerId: "w-1", jobs: [{ id: job.id, attempt: 1 }] })).size).toBe(1);
      await transition(t.pool, { jobId: job.id, event: "pause", actor: operator });
      for (const table of ["job_log", "job_catalog"]) {
        const [name, key] = [sql.identifier(table), sql.identifier(table === "job_catalog" ? "id" : "job_id")];
        await expect(execute(t.pool, sql`UPDATE ${name} SET tenant_id = tenant_id WHERE ${key} = ${job.id}`)).rejects.toThrow(/append-only/);
        await expect(execute(t.pool, sql`DELETE FROM ${name} WHERE ${key} = ${job.id}`)).rejects.toThrow(/append-only/);
      }
      await expect(execute(t.pool, sql`UPDATE job_events SET actor_id = 'x' WHERE job_id = ${job.id}`)).rejects.toThrow(/cannot update view/);
    });
  });
});

import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../db/test-db";
import { heartbeat } from "./heartbeat";
import { getJob, newJob, runJob, seedTenants } from "./test-helpers";

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

// Anything that could write a job's state: raw SQL, drizzle's builders, or the trigger's bypass mark.
const WRITES_JOBS = [/\bupdate\s+jobs\b/i, /\binsert\s+into\s+jobs\b/i, /\.(update|insert)\(\s*jobs\s*\)/, /jobscope\.write_path/];
const WRITE_PATH = new Set(["lib/jobs/write-path.ts", "lib/jobs/transition.ts", "lib/jobs/claim.ts", "lib/jobs/enqueue.ts", "lib/jobs/heartbeat.ts",
  // The worker's batched reports, and the benchmark's bulk generator of realistic histories (docs/benchmarks.md).
  "lib/jobs/complete.ts", "bench/generate.ts"]);
// Files that mention the pattern without writing through it: the migration that defines the guard and tests that attack it.
// Also the insight benchmark's bulk loader of synthetic histories (bench/insight-*.ts, docs/insight.md), which never runs against a live system.
// And the retention benchmark's loader of old finished jobs (scripts/retention-bench.ts, docs/operations.md), in databases it creates for itself.
const BENCH_LOADERS = new Set(["bench/insight-generate.ts", "bench/insight-explain.ts", "scripts/retention-bench.ts"]);
const ALLOWED = (f: string) => f.startsWith("drizzle/") || f.endsWith(".test.ts") || f.endsWith(".spec.ts") || BENCH_LOADERS.has(f);

describe("one write path", () => {
  it("no code outside lib/jobs writes the jobs table", () => {
    const files = sourceFiles(ROOT);
    expect(files).toContain("lib/jobs/transition.ts");
    const offenders = files
      .filter((f) => !WRITE_PATH.has(f) && !ALLOWED(f))
      .filter((f) => WRITES_JOBS.some((re) => re.test(readFileSync(path.join(ROOT, f), "utf8"))));
    expect(offenders).toEqual([]);
  });

  it("only write-path.ts marks a transaction as the write path", () => {
    const markers = sourceFiles(ROOT)
      .filter((f) => !ALLOWED(f))
      .filter((f) => readFileSync(path.join(ROOT, f), "utf8").includes("set_config('jobscope.write_path'"));
    expect(markers).toEqual(["lib/jobs/write-path.ts"]);
  });

  describe("and the database enforces it", () => {
    let t: TestDb;
    beforeAll(async () => {
      t = await createTestDb();
      await seedTenants(t.sql);
    });
    afterAll(() => t.close());

    it("refuses a state change, a version change and an insert from outside the write path", async () => {
      const job = await newJob(t.sql);
      await expect(t.sql`UPDATE jobs SET state = 'cancelled', finished_at = now(), state_version = 1 WHERE id = ${job.id}`).rejects.toThrow(/only through the write path/);
      await expect(t.sql`UPDATE jobs SET state_version = 5 WHERE id = ${job.id}`).rejects.toThrow(/only through the write path/);
      await expect(t.sql`INSERT INTO jobs (tenant_id, type, max_attempts) VALUES ('acme', 'report.generate', 1)`).rejects.toThrow(/only through the write path/);
      expect(await getJob(t.sql, job.id)).toMatchObject({ state: "queued", stateVersion: 0 });
    });

    it("refuses a write-path update that skips a version", async () => {
      const job = await newJob(t.sql);
      const bad = t.sql.begin(async (tx) => {
        await tx`SELECT set_config('jobscope.write_path', 'on', true)`;
        await tx`UPDATE jobs SET state = 'cancelled', finished_at = now(), state_version = 2 WHERE id = ${job.id}`;
      });
      await expect(bad).rejects.toThrow(/exactly one/);
    });

    it("lets the heartbeat through, and keeps the event log append-only", async () => {
      const job = await runJob(t.sql, await newJob(t.sql));
      expect((await heartbeat(t.sql, { workerId: "w-1", jobs: [{ id: job.id, attempt: 1 }] })).size).toBe(1);
      await expect(t.sql`UPDATE job_events SET actor_id = 'x' WHERE job_id = ${job.id}`).rejects.toThrow(/append-only/);
      await expect(t.sql`DELETE FROM job_events WHERE job_id = ${job.id}`).rejects.toThrow(/append-only/);
    });
  });
});

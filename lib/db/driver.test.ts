import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { setupTestDb } from "./test-db";

/**
 * postgres.js 3.4.9 could kill a process from outside any query when a backend was terminated
 * under load: `TypeError: Cannot read properties of null (reading 'write')` from a write
 * scheduled before the socket closed (porsager/postgres#1154, #1208), and an unhandled rejection
 * when a connection died while it fetched array types. patches/postgres+3.4.9.patch fixes both
 * at install (patch-package). This runs a loaded child process and terminates its backends
 * over and over; the child must neither die nor lose its pool.
 */
const t = setupTestDb({ max: 2, tenants: [] });

type Report = { died: string | null; message?: string; ok?: number; failed?: number; after?: number | null };

describe("postgres.js under pg_terminate_backend", () => {
  it("a process whose backends are terminated under load survives and keeps querying", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "lib/db/terminate-load.ts"], {
      env: { ...process.env, LOAD_URL: t.url, LOAD_MS: "10000" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    let ready: () => void = () => {};
    const isReady = new Promise<void>((resolve) => (ready = resolve));
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes('"ready":true')) ready();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    let kills = 0;
    let running = true;
    void exited.then(() => (running = false));
    // The storm is timed from the child's first query, not from the spawn: under CI load the
    // child's start alone can take most of its 10 s (a storm timed from the spawn once counted 6).
    await Promise.race([isReady, exited]);
    const start = Date.now();
    while (running && Date.now() < start + 10_000) {
      // Storms of 600 ms with 300 ms lulls: on a loaded machine a connection that is killed every
      // few milliseconds may never get a query through, and the child must show that it can.
      if ((Date.now() - start) % 900 >= 600) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      const [r] = await t.sql<{ n: number }[]>`
        SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
         WHERE application_name = 'jobscope-terminate-load' AND datname = current_database()`;
      kills += r?.n ?? 0;
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 25));
    }
    const code = await exited;
    const report = JSON.parse(out.trim().split("\n").pop() ?? "{}") as Report;
    expect(report.died, report.message).toBeNull();
    // Terminations by the dozen (fewer on a loaded machine, with the lulls): the storm was real.
    expect(kills).toBeGreaterThan(20);
    expect(code).toBe(0);
    expect(report.ok).toBeGreaterThan(0);
    expect(report.after).toBe(1);
  }, 90_000);
});

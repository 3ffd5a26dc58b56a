import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": fileURLToPath(new URL("./", import.meta.url)),
      // What Next.js does for its server bundles: the marker is empty where server code runs (its
      // default entry throws, for a client bundle that reached a server module).
      "server-only": fileURLToPath(new URL("./node_modules/server-only/empty.js", import.meta.url)),
    },
  },
  test: {
    include: ["lib/**/*.test.ts", "components/**/*.test.ts", "scripts/**/*.test.ts", "bench/**/*.test.ts"],
    globalSetup: ["./lib/db/test-global-setup.ts"],
    testTimeout: 60_000,
    // The tests run as the demo: its job types (poison.crash) exist (lib/jobs/job-types.ts).
    env: { JOBSCOPE_DEMO: "1" },
    hookTimeout: 120_000,
    // One file per core, not vitest's default of cores - 1 (a single worker on a 2-core CI box):
    // the files mostly wait on PostgreSQL, child processes and timers (chaos alone runs ~55 s),
    // and each has its own database (lib/db/test-db.ts). 279 s -> 213 s on 2 cores.
    maxWorkers: "100%",
  },
});

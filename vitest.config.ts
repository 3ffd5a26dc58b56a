import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("./", import.meta.url)) } },
  test: {
    include: ["lib/**/*.test.ts", "scripts/**/*.test.ts", "bench/**/*.test.ts"],
    globalSetup: ["./lib/db/test-global-setup.ts"],
    testTimeout: 60_000,
    // The tests run as the demo: its job types (poison.crash) exist (lib/jobs/job-types.ts).
    env: { JOBSCOPE_DEMO: "1" },
    hookTimeout: 120_000,
  },
});

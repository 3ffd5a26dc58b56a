import { existsSync } from "node:fs";
import { chromium, defineConfig, devices } from "@playwright/test";
import { findBrowser } from "./lib/e2e/browser";
import { storageStateFor } from "./e2e/auth";

// The specs write demo histories (poison.crash among them) through the write path, as the demo does.
process.env.JOBSCOPE_DEMO ??= "1";

// Overridable so that several checkouts (or people) can run the suite side by side.
const PORT = Number(process.env.E2E_PORT ?? 3100);
const DATA = process.env.E2E_DATA ?? ".data/e2e";
const baseURL = `http://127.0.0.1:${PORT}`;

// The browser `npm run test:e2e` found or installed (scripts/e2e-browser.ts, lib/e2e/browser.ts):
// JOBSCOPE_CHROMIUM, a system Chromium (Debian's where Playwright cannot download its own), or
// Playwright's own.
const browser = findBrowser({ env: process.env, exists: existsSync, playwrightChromium: () => chromium.executablePath() });
const launchOptions = browser?.system
  ? {
      executablePath: browser.path,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    }
  : {};

export default defineConfig({
  testDir: "e2e",
  // Per data dir, so side-by-side runs do not delete each other's traces.
  outputDir: `test-results/${DATA.replace(/[^a-z0-9-]/gi, "_")}`,
  // One app and one database serve every spec; specs that change data must not race each other.
  workers: 1,
  // A loaded 2-core machine (the console, PostgreSQL, workers and the browser share it) answers a
  // click in more than the default 5 s now and then.
  expect: { timeout: 10_000 },
  timeout: 60_000,
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  reporter: process.env.CI ? [["list"], ["html", { open: "never" }]] : "list",
  use: {
    baseURL,
    // Pages show times in the viewer's zone, the browser's on a first visit: the specs' is UTC
    // whatever the machine's (e2e/time-zone.spec.ts sets its own).
    timezoneId: "UTC",
    // The console's live dot pulses (motion-safe:animate-pulse) on every page: in a headless
    // Chromium without a GPU each frame is painted in software, which kept the GPU process at
    // 60% of a core for the whole suite. The specs assert no motion; reduced motion stops it.
    reducedMotion: "reduce",
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects: [
    { name: "setup", testMatch: /auth\.setup\.ts/, use: { ...devices["Desktop Chrome"], launchOptions } },
    {
      name: "chromium",
      dependencies: ["setup"],
      // Signed in as the demo operator unless a spec says otherwise (e2e/auth.ts SIGNED_OUT + signInAs).
      use: { ...devices["Desktop Chrome"], launchOptions, storageState: storageStateFor("operator") },
    },
  ],
  webServer: {
    // Specs write back-dated histories (lib/demo/history.ts) whose leases look hours old; the
    // e2e supervisor only presumes a lease dead after 6 h, so it never races a spec's history.
    command: `JOBSCOPE_STALE_AFTER_MS=21600000 JOBSCOPE_SIGN_IN_PER_MINUTE=1000 JOBSCOPE_SIGN_IN_FAILURES_PER_ACCOUNT=5 JOBSCOPE_SIGN_IN_SLOWDOWN_MS=50 npx tsx scripts/start.ts --port ${PORT} --data ${DATA} --fresh --no-traffic --demo-jobs 400`,
    url: `${baseURL}/api/counts`,
    timeout: 600_000,
    reuseExistingServer: false,
    // Let start.ts drain its workers, stop PostgreSQL and withdraw its .url file
    // (Playwright's default is SIGKILL, which leaves that file pointing at a dead server).
    gracefulShutdown: { signal: "SIGTERM", timeout: 45_000 },
  },
});

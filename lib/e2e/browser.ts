import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/**
 * The browser for the end-to-end tests, found or installed by `npm run test:e2e` itself
 * (on a machine without /usr/bin/chromium, Playwright's own browser — which `npm install` does
 * not fetch — would be missing and the suite would fail). In order: JOBSCOPE_CHROMIUM;
 * a system Chromium or Chrome; Playwright's downloaded Chromium; Playwright's download; Debian's
 * `chromium` package where apt-get can be run (as root, or with sudo that asks no password);
 * otherwise one sentence saying what to do.
 */
export type BrowserChoice = { path: string; system: boolean };

export type BrowserProbe = {
  env: Record<string, string | undefined>;
  exists: (path: string) => boolean;
  /** Playwright's own Chromium for this version of @playwright/test (present or not). */
  playwrightChromium: () => string;
  /** Run a command to completion; true when it succeeded. */
  run: (cmd: string, args: string[]) => boolean;
  isRoot: boolean;
  log: (line: string) => void;
};

export const SYSTEM_BROWSERS = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable"];

export const NO_BROWSER_INSTRUCTION =
  "No browser for the end-to-end tests: install Chromium (Debian/Ubuntu: `sudo apt-get install chromium`; elsewhere, " +
  "where the internet is reachable: `npx playwright install chromium`) or set JOBSCOPE_CHROMIUM to a Chromium binary, then run `npm test` again.";

/** A browser already on this machine, without installing anything (playwright.config.ts asks this). */
export function findBrowser(p: Pick<BrowserProbe, "env" | "exists" | "playwrightChromium">): BrowserChoice | null {
  const own = p.env.JOBSCOPE_CHROMIUM;
  if (own && p.exists(own)) return { path: own, system: true };
  const system = SYSTEM_BROWSERS.find((b) => p.exists(b));
  if (system) return { path: system, system: true };
  const managed = p.playwrightChromium();
  return managed && p.exists(managed) ? { path: managed, system: false } : null;
}

/** Find a browser, or install one where this machine allows it; otherwise the instruction to show. */
export function ensureBrowser(p: BrowserProbe): { ok: true; browser: BrowserChoice } | { ok: false; instruction: string } {
  const found = findBrowser(p);
  if (found) return { ok: true, browser: found };
  p.log("[jobscope] no Chromium found: trying Playwright's download (npx playwright install chromium)…");
  if (p.run("npx", ["playwright", "install", "chromium"])) {
    const after = findBrowser(p);
    if (after) return { ok: true, browser: after };
  }
  // How apt-get may run here: directly as root (null), through sudo that asks no password, or not at all (undefined).
  const asRoot = p.isRoot ? null : p.run("sudo", ["-n", "true"]) ? "sudo" : undefined;
  if (asRoot !== undefined && p.exists("/usr/bin/apt-get")) {
    p.log("[jobscope] Playwright's download failed: installing Debian's chromium with apt-get…");
    const apt = (args: string[]) => (asRoot ? p.run("sudo", ["-n", "/usr/bin/apt-get", ...args]) : p.run("/usr/bin/apt-get", args));
    if (apt(["update", "-qq"]) && apt(["install", "-y", "-qq", "--no-install-recommends", "chromium"])) {
      const after = findBrowser(p);
      if (after) return { ok: true, browser: after };
    }
  }
  return { ok: false, instruction: NO_BROWSER_INSTRUCTION };
}

/** The probe of this machine. */
export function machineProbe(playwrightChromium: () => string): BrowserProbe {
  return {
    env: process.env,
    exists: existsSync,
    playwrightChromium,
    run: (cmd, args) => spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } }).status === 0,
    isRoot: process.getuid?.() === 0,
    log: (line) => console.log(line),
  };
}

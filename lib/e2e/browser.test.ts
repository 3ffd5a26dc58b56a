import { describe, expect, it } from "vitest";
import { ensureBrowser, NO_BROWSER_INSTRUCTION, type BrowserProbe } from "./browser";

/** A machine described by what exists on it and which commands succeed; commands that succeed may install files. */
function machine(opts: { files?: string[]; root?: boolean; succeeds?: Record<string, string[]> }) {
  const files = new Set(opts.files ?? []);
  const ran: string[] = [];
  const probe: BrowserProbe = {
    env: {},
    exists: (p) => files.has(p),
    playwrightChromium: () => "/root/.cache/ms-playwright/chromium-1/chrome",
    run: (cmd, args) => {
      const line = [cmd, ...args].join(" ");
      ran.push(line);
      const installs = opts.succeeds?.[line];
      if (!installs) return false;
      for (const f of installs) files.add(f);
      return true;
    },
    isRoot: opts.root ?? false,
    log: () => {},
  };
  return { probe, ran };
}

describe("npm test finds or installs a browser by itself, also on a fresh machine without Chromium", () => {
  it("uses Debian's Chromium where it is installed, installing nothing", () => {
    const m = machine({ files: ["/usr/bin/chromium", "/usr/bin/apt-get"] });
    expect(ensureBrowser(m.probe)).toEqual({ ok: true, browser: { path: "/usr/bin/chromium", system: true } });
    expect(m.ran).toEqual([]);
  });

  it("downloads Playwright's Chromium where it can", () => {
    const m = machine({ succeeds: { "npx playwright install chromium": ["/root/.cache/ms-playwright/chromium-1/chrome"] } });
    expect(ensureBrowser(m.probe)).toEqual({ ok: true, browser: { path: "/root/.cache/ms-playwright/chromium-1/chrome", system: false } });
  });

  it("installs Debian's chromium with apt-get where the download fails and root may install packages", () => {
    const m = machine({
      root: true,
      files: ["/usr/bin/apt-get"],
      succeeds: { "/usr/bin/apt-get update -qq": [], "/usr/bin/apt-get install -y -qq --no-install-recommends chromium": ["/usr/bin/chromium"] },
    });
    expect(ensureBrowser(m.probe)).toEqual({ ok: true, browser: { path: "/usr/bin/chromium", system: true } });
    expect(m.ran).toContain("/usr/bin/apt-get install -y -qq --no-install-recommends chromium");
  });

  it("uses sudo when it asks no password", () => {
    const m = machine({
      files: ["/usr/bin/apt-get"],
      succeeds: {
        "sudo -n true": [],
        "sudo -n /usr/bin/apt-get update -qq": [],
        "sudo -n /usr/bin/apt-get install -y -qq --no-install-recommends chromium": ["/usr/bin/chromium"],
      },
    });
    expect(ensureBrowser(m.probe)).toMatchObject({ ok: true, browser: { path: "/usr/bin/chromium" } });
  });

  it("stops with one clear instruction where it can do neither", () => {
    const m = machine({ files: ["/usr/bin/apt-get"] });
    const r = ensureBrowser(m.probe);
    expect(r).toEqual({ ok: false, instruction: NO_BROWSER_INSTRUCTION });
    expect(NO_BROWSER_INSTRUCTION).not.toContain("\n");
    expect(m.ran).not.toContain("/usr/bin/apt-get update -qq");
  });
});

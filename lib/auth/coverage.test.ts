import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Every entry point checks who is calling, inside itself: pages, route
 * handlers and server actions (a server action is a public POST endpoint,
 * and a page-level check does not cover it). A new file without a check fails here.
 */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}
const app = files("app");
const read = (f: string) => readFileSync(f, "utf8");

/** Entry points that are public on purpose, and why. */
const PUBLIC: Record<string, string> = {
  "app/sign-in/page.tsx": "the sign-in form",
  "app/sign-in/actions.ts": "signing in and out",
  "app/api/auth/[...all]/route.ts": "better-auth's own endpoints (sign-up disabled)",
  "app/api/v1/openapi.json/route.ts": "the public API description",
  "app/api/v1/[...rest]/route.ts": "a JSON 404 for unknown API paths",
  "app/api/integrity/health/route.ts": "database up or down, nothing else (the outage banner)",
  "app/metrics/route.ts": "Prometheus: its own bearer token, JOBSCOPE_METRICS_TOKEN (lib/metrics/http.ts); off without it",
};
/**
 * The checks an entry point may call. Each is a wrapper whose own body calls
 * `authorize` (sessions) or verifies an API key — asserted below, so a wrapper
 * cannot quietly lose its check.
 */
const SESSION_GUARDS = ["authorize", "insightGet", "adminAction", "manager", "bulkOperator", "replayer"];
const calls = (src: string, names: string[]) => names.some((n) => new RegExp(`\\b${n}\\(`).test(src));

describe("every entry point checks permissions on the server", () => {
  it("pages call requirePage", () => {
    const pages = app.filter((f) => f.endsWith("page.tsx") && !PUBLIC[f]);
    expect(pages.length).toBeGreaterThan(8);
    expect(pages.filter((f) => !/requirePage\(/.test(read(f)))).toEqual([]);
  });

  it("route handlers call authorize (sessions) or an API-key check", () => {
    const routes = app.filter((f) => f.endsWith("route.ts") && !PUBLIC[f]);
    const unchecked = routes.filter((f) => !calls(read(f), f.startsWith("app/api/v1/") ? ["withApiKey"] : SESSION_GUARDS));
    expect(unchecked).toEqual([]);
    expect(read("lib/api/http.ts")).toMatch(/async function withApiKey[^]*?await verifyApiKey\(/);
  });

  it("each exported server action calls authorize inside its own body", () => {
    const actions = app.filter((f) => /^["']use server["']/m.test(read(f)) && !PUBLIC[f]);
    expect(actions.length).toBeGreaterThan(3);
    const offenders: string[] = [];
    for (const f of actions) {
      const src = read(f);
      for (const m of src.matchAll(/export async function (\w+)\s*\(/g)) {
        // The function's body: up to the next top-level export.
        const start = m.index!;
        const next = src.indexOf("\nexport ", start + 1);
        const body = src.slice(start, next === -1 ? undefined : next);
        if (!calls(body, SESSION_GUARDS)) offenders.push(`${f}: ${m[1]}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("each guard wrapper itself calls authorize", () => {
    const sources = app.filter((f) => f.endsWith(".ts") || f.endsWith(".tsx")).map(read);
    for (const guard of SESSION_GUARDS.filter((g) => g !== "authorize")) {
      const def = sources.find((src) => new RegExp(`function ${guard}\\b`).test(src));
      expect(def, guard).toBeDefined();
      const body = def!.slice(def!.search(new RegExp(`function ${guard}\\b`)));
      expect(body.slice(0, 1500), guard).toMatch(/await authorize\(/);
    }
  });
});

import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Every entry point checks who is calling, inside itself: pages, route
 * handlers and server actions (a server action is a public POST endpoint,
 * and a page-level check does not cover it). Actions and route handlers get
 * the check from the one frame each (lib/frame/action.ts, lib/frame/route.ts), with
 * validation, scope, audit and the result shape; an entry point built any other
 * way fails here.
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
 * The one frame of each kind of entry point (lib/frame): each asks `authorize` itself, first — asserted
 * below, so the frame cannot quietly lose its check. The tenant API (/api/v1) has its own, `withApiKey`.
 */
const ACTION_BUILDER = "consoleAction";
const ROUTE_BUILDER = "consoleRoute";
const API_FRAME = "withApiKey";

/** Each `export` statement of a module, up to the next one: its name and what it is built with. */
function exportsOf(src: string): { name: string; text: string }[] {
  const starts = [...src.matchAll(/^export\s+(?:const|let|var|async\s+function|function|class|default|\{|\*)\s*(\w*)/gm)];
  return starts.map((m, i) => ({ name: m[1] || m[0], text: src.slice(m.index, starts[i + 1]?.index) }));
}

/** The route handlers' HTTP methods, each of which must be built with the one frame. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

describe("every entry point checks permissions on the server", () => {
  it("pages call requirePage", () => {
    const pages = app.filter((f) => f.endsWith("page.tsx") && !PUBLIC[f]);
    expect(pages.length).toBeGreaterThan(8);
    expect(pages.filter((f) => !/requirePage\(/.test(read(f)))).toEqual([]);
  });

  it(`every console route handler is built with ${ROUTE_BUILDER}; the tenant API's call ${API_FRAME}`, () => {
    const routes = app.filter((f) => f.endsWith("route.ts") && !PUBLIC[f]);
    expect(routes.length).toBeGreaterThan(10);
    const offenders: string[] = [];
    for (const f of routes) {
      const handlers = exportsOf(read(f)).filter((e) => METHODS.has(e.name) || /^export\s*\{/.test(e.name));
      if (handlers.length === 0) offenders.push(`${f}: no handler found`);
      for (const h of handlers) {
        const ok = f.startsWith("app/api/v1/")
          ? new RegExp(`^export async function ${h.name}\\([^]*\\b${API_FRAME}\\(`).test(h.text)
          : new RegExp(`^export const ${h.name} = ${ROUTE_BUILDER}(<[^=]*?>)?\\(`).test(h.text);
        if (!ok) offenders.push(`${f}: ${h.name}`);
      }
    }
    expect(offenders).toEqual([]);
    expect(read("lib/api/http.ts")).toMatch(/async function withApiKey[^]*?await verifyApiKey\(/);
  });

  it(`every exported server action is built with ${ACTION_BUILDER}`, () => {
    const actions = app.filter((f) => /^["']use server["']/m.test(read(f)) && !PUBLIC[f]);
    expect(actions.length).toBeGreaterThan(8);
    const offenders: string[] = [];
    for (const f of actions) {
      for (const e of exportsOf(read(f))) {
        // Types are erased: only values are server actions.
        if (/^export\s+(type|interface)\b/.test(e.text)) continue;
        if (!new RegExp(`^export const ${e.name} = ${ACTION_BUILDER}\\(`).test(e.text)) offenders.push(`${f}: ${e.name}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("each frame asks authorize first", () => {
    for (const [file, name] of [
      ["lib/frame/action.ts", "frame"],
      ["lib/frame/route.ts", ROUTE_BUILDER],
    ] as const) {
      const src = read(file);
      const body = src.slice(src.search(new RegExp(`function ${name}\\b`)));
      // authorize comes before any other await: nothing is read or written for a caller not yet checked.
      expect(body.match(/await (\w+)\(/)?.[1], `${file} ${name}`).toBe("authorize");
    }
  });
});

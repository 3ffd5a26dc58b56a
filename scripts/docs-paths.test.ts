import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The docs name files of the repository (`lib/jobs/write.ts`, `drizzle/0012_…sql`): a rename or a
// deletion must change the text too, or a reader follows a name to nothing.
const ROOT = path.resolve(import.meta.dirname, "..");
const DOCS = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const TOP = ["lib", "app", "scripts", "bench", "e2e", "drizzle", "components", "docs", ".ci"];

/** Every `path` in backticks that starts at a top-level folder of the repository; globs and placeholders left out. */
function quotedPaths(text: string): string[] {
  const found = new Set<string>();
  for (const [, raw] of text.matchAll(/`([^`\s]+)`/g)) {
    const p = raw!.replace(/[:#]\d+(-\d+)?$/, "").replace(/[.,;:)]+$/, "");
    if (!TOP.some((t) => p.startsWith(`${t}/`))) continue;
    if (/[*<>{}…]|\.\.\./.test(p)) continue;
    found.add(p);
  }
  return [...found];
}

describe("the docs name files that exist", () => {
  for (const doc of DOCS)
    it(`${doc}: every quoted repository path exists`, () => {
      const missing = quotedPaths(readFileSync(path.join(ROOT, doc), "utf8")).filter((p) => !existsSync(path.join(ROOT, p)));
      expect(missing).toEqual([]);
    });
});

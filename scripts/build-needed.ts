// Whether a `next build` in `distDir` is older than the console's sources (then it must be rebuilt).
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const SOURCES = ["app", "components", "lib", "next.config.js", "package.json", "postcss.config.mjs", "proxy.ts"];

function newestMtime(p: string): number {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(p).map((f) => newestMtime(path.join(p, f))));
}

export function buildNeeded(distDir: string): boolean {
  const id = path.join(distDir, "BUILD_ID");
  const built = existsSync(id) ? statSync(id).mtimeMs : 0;
  return built <= Math.max(...SOURCES.map(newestMtime));
}

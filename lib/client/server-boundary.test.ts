import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * What reaches the browser: every module a "use client" module imports, and what they import, up
 * to the "use server" modules (a client receives references to their actions, never their code).
 * `next build` refuses a client module that reaches a module marked `import "server-only"`; the
 * modules the worker, the supervisor and the scripts share with the console cannot carry that mark
 * (in plain Node `server-only` resolves to its throwing entry), so this walk guards them too.
 */
const SOURCES = ["app", "components", "lib"];
// Packages that hold a database connection, the auth server or a secret: never in a browser bundle.
const SERVER_PACKAGES = /^(postgres|drizzle-orm|better-auth(?!\/react)|server-only|next\/headers|node:)/;

type Module = { file: string; client: boolean; server: boolean; imports: string[]; packages: string[] };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
  });
}

function resolveLocal(from: string, spec: string): string | null {
  const base = spec.startsWith("@/") ? spec.slice(2) : spec.startsWith(".") ? path.join(path.dirname(from), spec) : null;
  if (base === null) return null;
  return [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`].find((c) => existsSync(c) && statSync(c).isFile()) ?? null;
}

function read(file: string): Module {
  const text = readFileSync(file, "utf8");
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const directive = (d: string) =>
    src.statements[0] !== undefined && ts.isExpressionStatement(src.statements[0]) && src.statements[0].expression.getText(src).slice(1, -1) === d;
  const imports: string[] = [];
  const packages: string[] = [];
  for (const s of src.statements) {
    if (!(ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) || !s.moduleSpecifier || !ts.isStringLiteral(s.moduleSpecifier)) continue;
    // Types are erased: they bring no code into a bundle.
    if (ts.isImportDeclaration(s) ? s.importClause?.isTypeOnly : s.isTypeOnly) continue;
    const spec = s.moduleSpecifier.text;
    const local = resolveLocal(file, spec);
    if (local) imports.push(path.normalize(local));
    else packages.push(spec);
  }
  return { file, client: directive("use client"), server: directive("use server"), imports, packages };
}

describe("the browser's share of the code", () => {
  const modules = new Map(SOURCES.flatMap(sourceFiles).map((f) => [path.normalize(f), read(f)]));

  /** Each module a client module reaches that imports a server package, with the path to it. */
  function serverModulesReachedFromClients(): string[] {
    const found: string[] = [];
    const via = new Map<string, string>();
    const queue = [...modules.values()].filter((m) => m.client).map((m) => m.file);
    for (const f of queue) via.set(f, "");
    while (queue.length) {
      const m = modules.get(queue.shift()!)!;
      const bad = m.packages.filter((p) => SERVER_PACKAGES.test(p));
      if (bad.length) {
        const chain = [m.file];
        for (let at = via.get(m.file); at; at = via.get(at)) chain.unshift(at);
        found.push(`${chain.join(" -> ")} imports ${bad.join(", ")}`);
      }
      for (const d of m.imports) {
        if (via.has(d) || !modules.has(d) || modules.get(d)!.server) continue;
        via.set(d, m.file);
        queue.push(d);
      }
    }
    return found;
  }

  it("finds the client modules, and the database and auth modules they must not reach", () => {
    const clients = [...modules.values()].filter((m) => m.client);
    expect(clients.length).toBeGreaterThan(20);
    expect(modules.get(path.normalize("lib/db/client.ts"))!.packages).toContain("postgres");
  });

  it("no client module imports, even through others, the database, the auth server, secrets or Node's modules", () => {
    expect(serverModulesReachedFromClients()).toEqual([]);
  });

  it("would name the path to a client module's server import", () => {
    const probe = "components/zz-probe.tsx";
    modules.set(probe, { file: probe, client: true, server: false, imports: [path.normalize("lib/db/client.ts")], packages: [] });
    try {
      expect(serverModulesReachedFromClients()).toContainEqual(
        expect.stringMatching(/^components\/zz-probe\.tsx -> lib\/db\/client\.ts imports .*postgres/),
      );
    } finally {
      modules.delete(probe);
    }
  });
});

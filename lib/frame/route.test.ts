import { NextRequest } from "next/server";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Viewer } from "../auth/viewer";
import { setupTestDb } from "../db/test-db";
import { AppError } from "../result";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// The route frame with handlers made up here: statuses, bodies and the viewer's scope.
// Only the session is stood in for; the database is real, as the console's role.
let signedIn: Viewer | null = null;
/** The session store (the database) does not answer. */
let sessionFails = false;
vi.mock("@/lib/auth/viewer", async (importOriginal) => {
  const real = await importOriginal<typeof import("@/lib/auth/viewer")>();
  return {
    ...real,
    authorize: async () => {
      if (sessionFails) throw new Error("Failed to get session: connect ECONNREFUSED");
      return signedIn
        ? { ok: true, viewer: signedIn }
        : { ok: false, status: 401, code: "unauthenticated", message: "Sign in to do this.", viewer: null };
    },
  };
});

const ACME: Viewer = { userId: "u-acme", email: "dana@acme.example", name: "Dana", role: "tenant", tenantId: "acme", tenantOwner: false };

setupTestDb({ tenants: [], consolePool: true });
let consoleRoute: typeof import("./route").consoleRoute;
const get = (url = "http://localhost/api/probe") => new NextRequest(url);
const noParams = { params: Promise.resolve({}) };

beforeAll(async () => {
  ({ consoleRoute } = await import("./route"));
});

describe("consoleRoute", () => {
  // Built on first use: the frame is imported once the test database is up.
  const probe = () =>
    consoleRoute({
      permission: "jobs:read",
      input: (request) => {
        const q = request.nextUrl.searchParams.get("q");
        if (q === "bad") throw new AppError("invalid_input", "q may not be bad.");
        return q;
      },
      failed: "Could not load the probe.",
      read: async ({ tx, input }) => {
        if (input === "none") throw new AppError("not_found", "No such probe.");
        if (input === "crash") await execute(tx, sql`SELECT * FROM no_such_table`);
        const [scope] = await execute<{ tenant: string | null }>(tx, sql`SELECT current_setting('jobscope.tenant', true) AS tenant`);
        return { tenant: scope?.tenant ?? null };
      },
    });
  const tenants = (request: NextRequest, context: typeof noParams) => probe()(request, context);

  it("reads in the viewer's scope (row-level security confines a tenant member to their tenant)", async () => {
    signedIn = ACME;
    const res = await tenants(get(), noParams);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({ tenant: "acme" });
  });

  it("answers a denial, a bad parameter, a refusal and a failure with the one error body", async () => {
    signedIn = null;
    const denied = await tenants(get(), noParams);
    expect([denied.status, await denied.json()]).toEqual([401, { error: { code: "unauthenticated", message: "Sign in to do this." } }]);
    signedIn = ACME;
    const bad = await tenants(get("http://localhost/api/probe?q=bad"), noParams);
    expect([bad.status, await bad.json()]).toEqual([400, { error: { code: "invalid_input", message: "q may not be bad." } }]);
    const none = await tenants(get("http://localhost/api/probe?q=none"), noParams);
    expect([none.status, await none.json()]).toEqual([404, { error: { code: "not_found", message: "No such probe." } }]);
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    const crash = await tenants(get("http://localhost/api/probe?q=crash"), noParams);
    quiet.mockRestore();
    expect([crash.status, await crash.json()]).toEqual([500, { error: { code: "internal", message: "Could not load the probe." } }]);
  });

  it("a query parameter or a path parameter holding a NUL is a 400 naming it, not a database error", async () => {
    signedIn = ACME;
    const nul = await tenants(get("http://localhost/api/probe?q=a%00b"), noParams);
    expect([nul.status, (await nul.json()).error.code]).toEqual([400, "invalid_input"]);
    const param = await probe()(get(), { params: Promise.resolve({ id: "x\u0000" }) } as never);
    expect(param.status).toBe(400);
  });

  it("answers 503 in the route's words when the session cannot be read (the database is down), not the framework's 500 page", async () => {
    sessionFails = true;
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const res = await tenants(get(), noParams);
      expect([res.status, await res.json()]).toEqual([503, { error: { code: "internal", message: "Could not load the probe." } }]);
    } finally {
      quiet.mockRestore();
      sessionFails = false;
    }
  });
});

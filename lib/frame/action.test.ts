import { beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { Viewer } from "../auth/viewer";
import { setupTestDb } from "../db/test-db";
import { AppError } from "../result";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// The frame itself, with actions made up here: what it answers and what it leaves in the audit log
// and the database for each outcome. Only the session is stood in for; the database is real.
let signedIn: Viewer | null = null;
vi.mock("@/lib/auth/viewer", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/auth/viewer")>()),
  authorize: async () =>
    signedIn ? { ok: true, viewer: signedIn } : { ok: false, status: 401, code: "unauthenticated", message: "Sign in to do this.", viewer: null },
}));

const ADMIN: Viewer = { userId: "u-admin", email: "admin@jobscope.local", name: "Ada", role: "admin", tenantId: null, tenantOwner: false };

const db = setupTestDb({ tenants: [], consolePool: true });
let consoleAction: typeof import("./action").consoleAction;

const lastAudit = async () =>
  (
    await execute<{ actor: string; action: string; outcome: string; reason: string }>(
      db.pool,
      sql`SELECT actor, action, outcome, reason FROM audit_log ORDER BY id DESC LIMIT 1`,
    )
  )[0];
const tenant = async (id: string) => (await execute(db.pool, sql`SELECT id FROM tenants WHERE id = ${id}`)).length;

beforeAll(async () => {
  ({ consoleAction } = await import("./action"));
});

/** A made-up change: creates a tenant, then answers as `then` says. */
const probe = (then: "apply" | "throw" | "refuse-value" | "crash") =>
  consoleAction({
    permission: "admin:manage",
    audit: "admin.tenant.create",
    input: z.strictObject({ id: z.string().regex(/^[a-z-]+$/) }),
    change: async ({ tx, input }) => {
      await execute(tx, sql`INSERT INTO tenants (id, name) VALUES (${input.id}, ${input.id})`);
      if (then === "throw") throw new AppError("refused", "Not created: no.", { reason: "refused for the test" });
      if (then === "crash") throw new Error('relation "secret_table" does not exist');
      if (then === "refuse-value") return { ok: false, error: { code: "conflict", message: "Refused: moved." }, reason: "conflict: kept" };
      return { ok: true, data: { id: input.id }, message: `Created ${input.id}.` };
    },
  });

describe("consoleAction", () => {
  it("applies a change with its audit row in one commit", async () => {
    signedIn = ADMIN;
    expect(await probe("apply")({ id: "frame-a" })).toEqual({ ok: true, data: { id: "frame-a" }, message: "Created frame-a." });
    expect(await tenant("frame-a")).toBe(1);
    expect(await lastAudit()).toMatchObject({ actor: ADMIN.email, action: "admin.tenant.create", outcome: "applied", reason: "Created frame-a." });
  });

  it("a denial and bad input are audited and write nothing", async () => {
    signedIn = null;
    expect(await probe("apply")({ id: "frame-b" })).toEqual({ ok: false, error: { code: "forbidden", message: "Sign in to do this." } });
    expect(await lastAudit()).toMatchObject({ actor: "anonymous", outcome: "denied" });
    signedIn = ADMIN;
    expect(await probe("apply")({ id: "Frame B", extra: 1 })).toMatchObject({
      ok: false,
      error: { code: "invalid_input", message: /^Nothing was changed\./ },
    });
    expect(await lastAudit()).toMatchObject({ actor: ADMIN.email, outcome: "invalid" });
    expect(await tenant("frame-b")).toBe(0);
  });

  it("a thrown AppError rolls the change back and is audited on its own, with its reason", async () => {
    signedIn = ADMIN;
    expect(await probe("throw")({ id: "frame-c" })).toEqual({ ok: false, error: { code: "refused", message: "Not created: no." } });
    expect(await tenant("frame-c")).toBe(0);
    expect(await lastAudit()).toMatchObject({ outcome: "refused", reason: "refused for the test" });
  });

  it("a refusal returned as a value commits with its audit row (the state machine's refusals)", async () => {
    signedIn = ADMIN;
    expect(await probe("refuse-value")({ id: "frame-d" })).toEqual({ ok: false, error: { code: "conflict", message: "Refused: moved." } });
    expect(await tenant("frame-d")).toBe(1);
    expect(await lastAudit()).toMatchObject({ outcome: "refused", reason: "conflict: kept" });
  });

  it("an unknown failure is answered generically, audited as error, and rolled back", async () => {
    signedIn = ADMIN;
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    const r = await probe("crash")({ id: "frame-e" });
    quiet.mockRestore();
    expect(r).toMatchObject({ ok: false, error: { code: "internal" } });
    expect(JSON.stringify(r)).not.toContain("secret_table");
    expect(await tenant("frame-e")).toBe(0);
    expect(await lastAudit()).toMatchObject({ outcome: "error", reason: "internal error (see the server log)" });
  });

  it("a signed-in user's repeated refusals are aggregated like anonymous ones: one row at once, the rest as one row with a count", async () => {
    const MEMBER: Viewer = { userId: "u-member", email: "member@acme.example", name: "M", role: "tenant", tenantId: "acme", tenantOwner: false };
    const rows = () =>
      execute<{ outcome: string; repeatCount: number; reason: string }>(
        db.pool,
        sql`
      SELECT outcome, repeat_count, reason FROM audit_log WHERE actor = ${MEMBER.email} ORDER BY id`,
      );
    signedIn = MEMBER;
    // The same bad input, 60 times (a script, or a stuck button).
    for (let i = 0; i < 60; i++) expect(await probe("apply")({ id: "Not An Id" })).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    expect(await rows()).toEqual([expect.objectContaining({ outcome: "invalid", repeatCount: 1 })]);
    const { anonymousAudit } = await import("../audit/anonymous");
    await anonymousAudit().flush();
    expect((await rows()).map((r) => [r.outcome, r.repeatCount])).toEqual([
      ["invalid", 1],
      ["invalid", 59],
    ]);
    expect((await rows())[1]!.reason).toMatch(/^59 more like this/);
  });

  it("text PostgreSQL cannot store is invalid input naming its field, before the action runs", async () => {
    signedIn = ADMIN;
    for (const raw of [{ id: "a\u0000b" }, { id: "x\ud800" }, { ["k\u0000"]: 1 }]) {
      const r = await probe("apply")(raw);
      expect(r, JSON.stringify(raw)).toMatchObject({
        ok: false,
        error: { code: "invalid_input", message: expect.stringMatching(/^Nothing was changed\. (id|input) (contains|has a key)/) },
      });
    }
    const form = new FormData();
    form.set("id", "nul\u0000");
    expect(await probe("apply")(form)).toMatchObject({ ok: false, error: { code: "invalid_input" } });
  });
});

import { readFileSync } from "node:fs";
import { request } from "node:http";
import type { APIRequestContext, Page } from "@playwright/test";
import type { EnqueueInput } from "../lib/jobs/enqueue";
import type { JobRow } from "../lib/jobs/types";
import { createUser } from "../lib/auth/users";
import { DEMO_USERS, type DemoUser } from "../lib/demo/users";
import { SIGNED_OUT, signInAs } from "./auth";
import { expect, HELD_QUEUE, jobRow, test } from "./fixtures";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

/**
 * Server actions are public POST endpoints. These specs call them the way an
 * attacker would — a crafted POST with the action's id, no UI — and check that
 * the server refuses, records the refusal, and changes nothing.
 */
test.use({ storageState: SIGNED_OUT });

const DIST = process.env.JOBSCOPE_DIST_DIR ?? ".next";

type Manifest = { node: Record<string, { filename?: string; exportedName?: string }> };

/** The id Next.js gave a server action in this build. */
function actionId(file: string, name: string): string {
  const manifest = JSON.parse(readFileSync(`${DIST}/server/server-reference-manifest.json`, "utf8")) as Manifest;
  for (const [id, entry] of Object.entries(manifest.node)) {
    if (entry.exportedName === name && entry.filename?.endsWith(file)) return id;
  }
  throw new Error(`no server action ${name} in ${file}`);
}

/** POST a server action directly: its id in the Next-Action header, its arguments as the body. */
async function callAction(
  request: APIRequestContext,
  path: string,
  file: string,
  name: string,
  args: unknown[],
  headers: Record<string, string> = {},
) {
  const res = await request.post(path, {
    headers: { "Next-Action": actionId(file, name), "Content-Type": "text/plain;charset=UTF-8", Accept: "text/x-component", ...headers },
    data: JSON.stringify(args),
  });
  return { status: res.status(), body: await res.text() };
}

/** The one entry point of every operation on jobs: one job from its page, or a selection. */
const APPLY = ["app/_operation/actions.ts", "applyOperationAction"] as const;

/** The job page's action cancelling `jobId` as the page saw it: queued, at version 0. */
const cancelQueued = (request: APIRequestContext, jobId: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  callAction(
    request,
    `/jobs/${jobId}`,
    ...APPLY,
    [{ operation: "cancel", selection: { kind: "ids", ids: [jobId] }, jobs: [[jobId, "queued", 0]], ...extra }],
    headers,
  );

/** A bulk `operation` of the jobs list on a filter that froze `jobId` (twice: a selection, never one job). */
const bulk = (request: APIRequestContext, jobId: string, operation: "cancel" | "replay" = "cancel") =>
  callAction(request, "/jobs", ...APPLY, [
    {
      operation,
      selection: { kind: "filter", search: "state=queued" },
      jobs: [
        [jobId, operation === "replay" ? "dead" : "queued", 0],
        [jobId, operation === "replay" ? "dead" : "queued", 0],
      ],
    },
  ]);

const REPORT = { type: "report.generate", queue: HELD_QUEUE, params: { report: "daily_usage", period: "2026-11" } } as const;

async function auditRows(db: Parameters<typeof jobRow>[0], jobId: string) {
  return execute<{ actor: string; action: string; outcome: string }>(
    db,
    sql`
    SELECT actor, action, outcome FROM audit_log WHERE ${jobId}::uuid = ANY(job_ids) ORDER BY id`,
  );
}

const unchanged = async (db: Parameters<typeof jobRow>[0], before: JobRow) => {
  const now = await jobRow(db, before.id);
  expect({ state: now.state, stateVersion: now.stateVersion }).toEqual({ state: before.state, stateVersion: before.stateVersion });
};

async function signedIn(page: Page, who: DemoUser) {
  await signInAs(page, who);
  return page.request;
}

/** An acme report on the held queue (it stays queued while the spec acts on it), and a request signed in as `who`. */
async function heldJobAs(who: DemoUser, { page, submit }: { page: Page; submit: (input: EnqueueInput) => Promise<JobRow> }) {
  return { job: await submit({ tenantId: "acme", ...REPORT }), request: await signedIn(page, who) };
}

test.describe("server actions called directly", () => {
  test("support may not cancel, bulk-act or replay: denied, audited, nothing changes", async ({ page, db, submit }) => {
    const { job, request } = await heldJobAs("support", { page, submit });
    const cancel = await cancelQueued(request, job.id);
    expect(cancel.body).toContain('"forbidden"');
    expect((await bulk(request, job.id)).body).toContain('"forbidden"');
    expect((await bulk(request, job.id, "replay")).body).toContain('"forbidden"');
    await unchanged(db, job);
    expect(await auditRows(db, job.id)).toContainEqual({ actor: DEMO_USERS.support.email, action: "job.cancel", outcome: "denied" });
    const denied = await execute<{ action: string }>(
      db,
      sql`
      SELECT action FROM audit_log WHERE actor = ${DEMO_USERS.support.email} AND outcome = 'denied' AND action IN ('bulk.start', 'replay.start')`,
    );
    expect(denied.map((d) => d.action).sort()).toEqual(["bulk.start", "replay.start"]);
  });

  test("signed out: every action is denied and nothing changes", async ({ request, db, submit }) => {
    const job = await submit({ tenantId: "acme", ...REPORT });
    const cancel = await cancelQueued(request, job.id);
    expect(cancel.body).toContain("Sign in to do this.");
    expect((await bulk(request, job.id)).body).toContain('"forbidden"');
    await unchanged(db, job);
    expect(await auditRows(db, job.id)).toContainEqual({ actor: "anonymous", action: "job.cancel", outcome: "denied" });
  });

  test("IDOR: another tenant's job is 404 on every page and endpoint, and a crafted cancel changes nothing", async ({ page, db, submit }) => {
    const { job, request } = await heldJobAs("globex", { page, submit });
    expect((await page.goto(`/jobs/${job.id}`))?.status()).toBe(404);
    const api = await request.get(`/api/jobs/${job.id}`);
    expect(api.status()).toBe(404);
    expect((await api.json()).error.code).toBe("not_found");
    // The same answer as an id that never existed: no oracle for what exists elsewhere.
    const missing = await request.get("/api/jobs/00000000-0000-4000-8000-000000000000");
    expect(missing.status()).toBe(404);
    expect(await missing.json()).toEqual(await api.json());

    const cancel = await cancelQueued(request, job.id);
    expect(cancel.body).toContain('"not_found"');
    // Bulk and dead-job endpoints are for staff: a tenant is refused outright.
    expect((await bulk(request, job.id)).body).toContain('"forbidden"');
    expect((await request.get("/api/dead")).status()).toBe(403);
    expect((await page.goto("/dead"))?.status()).toBe(404);
    await unchanged(db, job);
    expect(await auditRows(db, job.id)).toContainEqual({ actor: DEMO_USERS.globex.email, action: "job.cancel", outcome: "refused" });
  });

  test("a tenant cancels its own job through the same action, audited in the same transaction", async ({ page, db, submit }) => {
    const { job, request } = await heldJobAs("acme", { page, submit });
    const cancel = await cancelQueued(request, job.id);
    expect(cancel.body).toContain('"ok":true');
    expect((await jobRow(db, job.id)).state).toBe("cancelled");
    expect(await auditRows(db, job.id)).toContainEqual({ actor: DEMO_USERS.acme.email, action: "job.cancel", outcome: "applied" });
    // A tenant may not apply an operator's event, even to its own job.
    const dead = await submit({ tenantId: "acme", ...REPORT });
    const pause = await cancelQueued(request, dead.id, { operation: "pause" });
    expect(pause.body).toContain('"forbidden"');
    await unchanged(db, dead);
  });

  test("mass assignment: extra fields such as state or tenantId are rejected, nothing changes", async ({ page, db, submit }) => {
    const { job, request } = await heldJobAs("operator", { page, submit });
    for (const extra of [{ state: "succeeded" }, { tenantId: "globex" }, { stateVersion: 9 }]) {
      const r = await cancelQueued(request, job.id, extra);
      expect(r.body).toContain('"invalid_input"');
    }
    await unchanged(db, job);
    const invalid = await auditRows(db, job.id);
    expect(invalid.filter((a) => a.outcome === "invalid")).toHaveLength(3);
  });

  test("a cross-origin POST to a server action is refused with 403 (it was 500) and audited, even with a valid session", async ({
    page,
    db,
    submit,
  }) => {
    const { job, request } = await heldJobAs("operator", { page, submit });
    const since = await lastAuditId(db);
    const r = await cancelQueued(
      request,
      job.id,
      {},
      {
        Origin: "https://evil.example",
      },
    );
    expect(r.status).toBe(403);
    await unchanged(db, job);
    // The first refusal of its kind from an address is written at once (later ones in the same
    // minute are counted into one row), but after the 403 is sent: the refusal never waits on it.
    await expect
      .poll(() =>
        execute<{ outcome: string; reason: string }>(
          db,
          sql`SELECT outcome, reason FROM audit_log WHERE id > ${since} AND action = 'console.cross_origin'`,
        ).then((rows) => [...rows]),
      )
      .toEqual([{ outcome: "denied", reason: expect.stringContaining("from another origin was refused") }]);
  });

  test("X-Forwarded-Host from a client that is not a configured proxy is ignored by the origin check", async ({ page, db, submit }) => {
    const { job, request } = await heldJobAs("operator", { page, submit });
    // Next.js compares the Origin with X-Forwarded-Host when present: a forged one made a foreign origin look like home.
    const r = await cancelQueued(
      request,
      job.id,
      {},
      {
        Origin: "https://evil.example",
        "X-Forwarded-Host": "evil.example",
      },
    );
    expect(r.status).toBe(403);
    await unchanged(db, job);
  });
});

/** The newest audit row's id: a spec reads only what it caused. */
const lastAuditId = async (db: Parameters<typeof jobRow>[0]) =>
  (await execute<{ id: number }>(db, sql`SELECT coalesce(max(id), 0)::int AS id FROM audit_log`))[0]!.id;

test.describe("signing in", () => {
  test("wrong passwords through the sign-in form lock the account: the right password is then refused too", async ({ page, db }) => {
    // Six password checks (scrypt) and a growing slowdown: more than the default 30 s on a shared machine.
    test.setTimeout(90_000);
    const email = `lockout-${Date.now()}@e2e.example`;
    await createUser(db, { email, name: "Lockout", password: "the-right-password", role: "support" });
    await page.goto("/sign-in");
    /** Submit the form and wait for its server action's answer (the previous answer's alert is still on the page). */
    const attempt = async (password: string) => {
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(password);
      const answered = page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/sign-in");
      await page.getByRole("button", { name: "Sign in" }).click();
      await answered;
      return page.getByRole("main").getByRole("alert");
    };
    // The e2e server allows 5 wrong passwords per account (JOBSCOPE_SIGN_IN_FAILURES_PER_ACCOUNT in playwright.config.ts).
    for (let i = 0; i < 5; i++) await expect(await attempt(`wrong-password-${i}`)).toContainText("do not match");
    await expect(await attempt("the-right-password")).toContainText("Too many sign-in attempts");
    await expect(page).toHaveURL(/\/sign-in/);
    const [user] = await execute<{ id: string }>(db, sql`SELECT id FROM users WHERE email = ${email}`);
    const [sessions] = await execute<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM sessions WHERE user_id = ${user!.id}`);
    expect(sessions!.n).toBe(0);
    const failed = await execute<{ reason: string }>(
      db,
      sql`SELECT reason FROM audit_log WHERE action = 'auth.sign_in' AND reason LIKE ${`%${email}%`}`,
    );
    expect(failed.length).toBeGreaterThan(0);
  });

  test("a sign-in body over its limit is answered 413 before it is read, and a URL holding a NUL is a 400", async ({ baseURL }) => {
    const url = new URL("/api/auth/sign-in/email", baseURL);
    // Only the headers are sent: a server that waited for the 400 MB it was promised would never answer.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        url,
        { method: "POST", headers: { "content-type": "application/json", "content-length": String(400 * 1024 * 1024) } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.flushHeaders();
    });
    expect(status).toBe(413);
    const nul = await fetch(new URL("/jobs?type=a%00b", baseURL), { redirect: "manual" });
    expect(nul.status).toBe(400);
  });

  test("?next= never leads off the site, and odd characters never answer 500", async ({ page }) => {
    const request = await signedIn(page, "operator");
    for (const raw of ["/\t/evil.example/phish", "/\\evil.example", "//evil.example", "https://evil.example", "/\n/x", "/\u2028/x"]) {
      const res = await request.get(`/sign-in?next=${encodeURIComponent(raw)}`, { maxRedirects: 0 });
      expect(res.status(), JSON.stringify(raw)).toBe(307);
      expect(res.headers()["location"], JSON.stringify(raw)).toBe("/");
    }
    const ok = await request.get(`/sign-in?next=${encodeURIComponent("/jobs?state=dead")}`, { maxRedirects: 0 });
    expect(ok.headers()["location"]).toBe("/jobs?state=dead");
  });
});

test.describe("untrusted text", () => {
  test("markup in params, error messages and tenant names renders as inert text", async ({ page, db, history }) => {
    const payload = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`;
    await execute(db, sql`INSERT INTO tenants (id, name) VALUES ('xss-corp', ${payload}) ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name`);
    const h = await history(60_000).submit(
      { tenantId: "acme", type: "media.render", queue: HELD_QUEUE, params: { assetId: payload, frames: 10 } },
      { kind: "api", id: payload.slice(0, 60) },
    );
    await h.run("w-xss", 500);
    await h.step("abandon", 500, undefined, { error: { class: "<b>Bold</b>", message: payload } });
    await signInAs(page, "operator", `/jobs/${h.id}`);
    await page.goto(`/jobs/${h.id}`);
    await expect(page.getByText(payload).first()).toBeVisible();
    await page.goto("/jobs?tenant=xss-corp");
    await page.goto("/dead");
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    // The page's Content-Security-Policy would also refuse an injected script without the nonce.
    const res = await page.goto(`/jobs/${h.id}`);
    expect(res?.headers()["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });
});

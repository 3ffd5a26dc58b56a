import type { APIRequestContext } from "@playwright/test";
import { createApiKey } from "../lib/api/keys";
import type { Db } from "../lib/db/client";
import { DEMO_USERS } from "../lib/demo/users";
import { SIGNED_OUT, signInAs } from "./auth";
import { expect, HELD_QUEUE, jobRow, test } from "./fixtures";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

/** Keys are created through lib/api with the owner's connection, as the console would. */
const ADMIN = { userId: null, actor: "e2e-spec", role: "admin" as const, tenantId: null };
const newKey = async (db: Db, tenantId: string) => (await createApiKey(db, { tenantId, name: `e2e ${tenantId}` }, ADMIN)).secret;

const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });
// Due in an hour: it stays queued (a tenant may only use its type's queue, which the e2e workers claim).
const REPORT = {
  type: "report.generate",
  params: { report: "daily_usage", period: "2026-11" },
  notBefore: new Date(Date.now() + 3_600_000).toISOString(),
};

async function submit(request: APIRequestContext, secret: string, body: Record<string, unknown> = REPORT) {
  const r = await request.post("/api/v1/jobs", { headers: bearer(secret), data: body });
  return { status: r.status(), body: await r.json() };
}

test.describe("tenant API", () => {
  test("an acme key submits, lists, reads and cancels acme's jobs", async ({ request, db }) => {
    const acme = await newKey(db, "acme");
    const idem = `e2e-${Date.now()}`;
    const since = new Date(Date.now() - 1000).toISOString();
    const created = await submit(request, acme, { ...REPORT, idempotencyKey: idem });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ tenantId: "acme", state: "queued", queue: "default", stateVersion: 0 });
    const replay = await submit(request, acme, { ...REPORT, idempotencyKey: idem });
    expect(replay).toMatchObject({ status: 200, body: { id: created.body.id } });

    const list = await request.get(`/api/v1/jobs?createdFrom=${encodeURIComponent(since)}&state=queued&limit=200`, { headers: bearer(acme) });
    expect(list.status()).toBe(200);
    const page = await list.json();
    expect(page.jobs.map((j: { id: string }) => j.id)).toContain(created.body.id);
    expect(page.jobs.every((j: { tenantId: string }) => j.tenantId === "acme")).toBe(true);

    const detail = await request.get(`/api/v1/jobs/${created.body.id}`, { headers: bearer(acme) });
    expect(detail.status()).toBe(200);
    expect(await detail.json()).toMatchObject({ job: { id: created.body.id }, runs: [], events: [{ event: "submit", actorKind: "api" }] });

    const cancel = await request.post(`/api/v1/jobs/${created.body.id}/cancel`, {
      headers: bearer(acme),
      data: { expectedState: "queued", expectedVersion: 0 },
    });
    expect(cancel.status()).toBe(200);
    expect(await cancel.json()).toMatchObject({ from: "queued", job: { state: "cancelled", stateVersion: 1 } });
    const again = await request.post(`/api/v1/jobs/${created.body.id}/cancel`, { headers: bearer(acme) });
    expect(again.status()).toBe(409);
    expect((await again.json()).error.code).toBe("illegal");
    expect((await jobRow(db, created.body.id)).state).toBe("cancelled");
  });

  test("IDOR: a globex key asking for an acme job gets 404 for GET and cancel, and the job is unchanged", async ({
    request,
    db,
    submit: submitAs,
  }) => {
    const job = await submitAs({ tenantId: "acme", ...REPORT, queue: HELD_QUEUE });
    const globex = await newKey(db, "globex");
    const missing = await request.get("/api/v1/jobs/00000000-0000-4000-8000-000000000000", { headers: bearer(globex) });
    const get = await request.get(`/api/v1/jobs/${job.id}`, { headers: bearer(globex) });
    expect(get.status()).toBe(404);
    expect(await get.json()).toEqual(await missing.json());
    const cancel = await request.post(`/api/v1/jobs/${job.id}/cancel`, { headers: bearer(globex) });
    expect(cancel.status()).toBe(404);
    expect((await cancel.json()).error.code).toBe("not_found");
    const list = await (await request.get(`/api/v1/jobs?queue=${HELD_QUEUE}&limit=200`, { headers: bearer(globex) })).json();
    expect(list.jobs.map((j: { id: string }) => j.id)).not.toContain(job.id);
    const after = await jobRow(db, job.id);
    expect({ state: after.state, stateVersion: after.stateVersion, tenantId: after.tenantId }).toEqual({
      state: "queued",
      stateVersion: 0,
      tenantId: "acme",
    });
  });

  test("mass assignment and bad keys are refused with stable codes; the console's session cookie is not a key", async ({ request, db }) => {
    const acme = await newKey(db, "acme");
    const idem = `e2e-mass-${Date.now()}`;
    for (const extra of [{ tenantId: "globex" }, { state: "succeeded" }, { attempt: 3 }]) {
      const r = await submit(request, acme, { ...REPORT, idempotencyKey: idem, ...extra });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("invalid_input");
    }
    expect(await execute(db, sql`SELECT id FROM jobs WHERE idempotency_key = ${idem}`)).toHaveLength(0);

    // This context carries the demo operator's session cookie: the API ignores it.
    const noKey = await request.get("/api/v1/jobs");
    expect(noKey.status()).toBe(401);
    expect(await noKey.json()).toEqual({ error: { code: "unauthenticated", message: expect.any(String) } });
    expect((await request.get("/api/v1/jobs", { headers: bearer(`jsk_${"x".repeat(43)}`) })).status()).toBe(401);
    const unknownPath = await request.get("/api/v1/nope", { headers: bearer(acme) });
    expect(unknownPath.status()).toBe(404);
    expect((await unknownPath.json()).error.code).toBe("not_found");
  });

  test("a key over its rate limit gets 429 with Retry-After", async ({ request, db }) => {
    const key = await newKey(db, "globex");
    // The e2e server runs with the defaults (600 a minute, bursts of 60): 100 requests at once exceed the burst.
    const statuses = await Promise.all(
      Array.from({ length: 100 }, async () => {
        const r = await request.get("/api/v1/jobs?limit=1", { headers: bearer(key) });
        return { status: r.status(), retryAfter: r.headers()["retry-after"] };
      }),
    );
    const limited = statuses.filter((s) => s.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(Number(limited[0]!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((s) => s.status === 200).length).toBeGreaterThanOrEqual(60);
  });

  test("serves its OpenAPI 3.1 document without a key", async ({ request }) => {
    const r = await request.get("/api/v1/openapi.json");
    expect(r.status()).toBe(200);
    const doc = await r.json();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/v1/jobs", "/api/v1/jobs/{id}", "/api/v1/jobs/{id}/cancel"]));
  });
});

test.describe("API keys page", () => {
  test.use({ storageState: SIGNED_OUT });

  test("a tenant owner creates a key, sees it once, uses it, and revokes it", async ({ page, request, db }) => {
    await signInAs(page, "acme", "/api-keys");
    await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
    const name = `deploy-bot-${Date.now()}`;
    await page.getByLabel("Name").fill(name);
    await page.getByRole("button", { name: "Create key" }).click();
    const secretBox = page.getByTestId("new-key-secret");
    await expect(secretBox).toHaveValue(/^jsk_[A-Za-z0-9_-]{43}$/);
    const secret = await secretBox.inputValue();
    const row = page.getByTestId("api-key-row").filter({ hasText: name });
    await expect(row).toContainText(`${secret.slice(0, 12)}…`);
    await expect(row).toContainText(DEMO_USERS.acme.email);

    const submitted = await submit(request, secret);
    expect(submitted.status).toBe(201);
    expect(submitted.body.tenantId).toBe("acme");

    // Shown once: a reload lists the key but never its secret.
    await page.reload();
    await expect(page.getByTestId("api-key-row").filter({ hasText: name })).toBeVisible();
    await expect(page.getByTestId("new-key-secret")).toHaveCount(0);
    expect(await page.content()).not.toContain(secret.slice(12));

    await page.getByRole("button", { name: new RegExp(`^Revoke ${name}`) }).click();
    await page.getByRole("button", { name: "Yes, revoke" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Revoked" })).toBeVisible();
    await expect(page.getByTestId("api-key-row").filter({ hasText: name })).toContainText("Revoked");
    expect((await request.get("/api/v1/jobs", { headers: bearer(secret) })).status()).toBe(401);
    const audit = await execute(
      db,
      sql`SELECT action FROM audit_log WHERE actor = ${DEMO_USERS.acme.email} AND action LIKE 'api_key.%' AND reason LIKE ${`%${name}%`} ORDER BY id`,
    );
    expect(audit.map((a) => a.action)).toEqual(["api_key.create", "api_key.revoke"]);
  });

  test("an admin creates a key for any tenant; an operator has no API keys page", async ({ page, request }) => {
    await signInAs(page, "admin", "/api-keys");
    const name = `admin-made-${Date.now()}`;
    await page.getByLabel("Name").fill(name);
    await page.getByLabel("Tenant").selectOption("globex");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = await page.getByTestId("new-key-secret").inputValue();
    await expect(page.getByTestId("api-key-row").filter({ hasText: name })).toContainText("globex");
    expect((await submit(request, secret)).body.tenantId).toBe("globex");

    await page.context().clearCookies();
    await signInAs(page, "operator");
    await expect(page.getByRole("link", { name: "API keys" })).toHaveCount(0);
    expect((await page.goto("/api-keys"))?.status()).toBe(404);
  });

  test("a plain tenant member has no API keys page", async ({ page }) => {
    await signInAs(page, "globex");
    await expect(page.getByRole("link", { name: "API keys" })).toHaveCount(0);
    const r = await page.goto("/api-keys");
    expect(r?.status()).toBe(404);
  });
});

import type { Locator, Page } from "@playwright/test";
import type { DemoUser } from "../lib/demo/users";
import { SIGNED_OUT, signInAs, signOut } from "./auth";
import { CONSOLE_PAGES, expect, HELD_QUEUE, test } from "./fixtures";

// Each spec signs in as the role it is about.
test.use({ storageState: SIGNED_OUT });

/** Exactly the sections each role's navigation lists (app/layout.tsx, from lib/auth/permissions.ts). */
const NAV: Record<DemoUser, string[]> = {
  admin: [
    "Overview",
    "Jobs",
    "Dead jobs",
    "Queues",
    "Schedules",
    "Workers",
    "Rejections",
    "Alerts",
    "State machine",
    "Audit",
    "Integrity",
    "Admin",
    "API keys",
  ],
  operator: ["Overview", "Jobs", "Dead jobs", "Queues", "Schedules", "Workers", "Rejections", "Alerts", "State machine", "Audit", "Integrity"],
  support: ["Overview", "Jobs", "Dead jobs", "Queues", "Schedules", "Workers", "Rejections", "State machine"],
  acme: ["Jobs", "Alerts", "API keys"], // dana@acme.example owns her tenant: she manages its API keys
  globex: ["Jobs", "Alerts"],
};

/** Pages each role may open; every other of CONSOLE_PAGES answers 404 (no hint that it exists). */
const ALLOWED: Record<DemoUser, readonly string[]> = {
  admin: CONSOLE_PAGES,
  operator: CONSOLE_PAGES.filter((p) => p !== "/admin" && p !== "/api-keys"),
  support: CONSOLE_PAGES.filter((p) => !["/admin", "/api-keys", "/audit", "/integrity"].includes(p)),
  acme: ["/jobs", "/api-keys"],
  globex: ["/jobs"],
};

/** The job page's action buttons for a paused job, per role: from the state machine's actors. */
const PAUSED_JOB_BUTTONS: Record<DemoUser, string[]> = {
  admin: ["Resume", "Abandon", "Cancel"],
  operator: ["Resume", "Abandon", "Cancel"],
  support: [],
  acme: ["Cancel"],
  globex: [], // not even the page: another tenant's job is 404
};

/** The vertical middle of an element on the page. */
async function middle(l: Locator) {
  const box = (await l.boundingBox())!;
  return box.y + box.height / 2;
}

const navLinks = (page: Page) => page.getByRole("navigation", { name: "Main" }).getByRole("link");

test.describe("roles", () => {
  for (const who of Object.keys(NAV) as DemoUser[]) {
    test(`${who}: sees exactly its sections, pages and buttons`, async ({ page, pausedJob }) => {
      const jobId = await pausedJob("w-e2e-roles");

      await signInAs(page, who);
      await expect(navLinks(page)).toHaveText(NAV[who]);
      // On a desktop screen the header is one line: the logo, every section and the account menu.
      for (const width of [1280, 1440]) {
        await page.setViewportSize({ width, height: 900 });
        const logo = await middle(page.getByRole("banner").getByRole("link", { name: "Jobscope" }));
        expect(Math.abs((await middle(navLinks(page).last())) - logo), `${who}: the last section at ${width} px`).toBeLessThan(8);
        expect(Math.abs((await middle(page.getByTestId("signed-in-as"))) - logo), `${who}: the account menu at ${width} px`).toBeLessThan(8);
      }

      for (const path of CONSOLE_PAGES) {
        const res = await page.goto(path);
        // A tenant member's start page is their jobs: the cross-tenant overview sends them there.
        if (path === "/" && (who === "acme" || who === "globex")) {
          expect(new URL(page.url()).pathname).toBe("/jobs");
          continue;
        }
        expect(res?.status(), `${who} ${path}`).toBe(ALLOWED[who].includes(path) ? 200 : 404);
      }

      const res = await page.goto(`/jobs/${jobId}`);
      if (who === "globex") {
        expect(res?.status()).toBe(404);
        return;
      }
      expect(res?.status()).toBe(200);
      const actions = page.getByRole("group", { name: "Job actions" });
      if (PAUSED_JOB_BUTTONS[who].length === 0) await expect(actions).toHaveCount(0);
      else await expect(actions.getByRole("button")).toHaveText(PAUSED_JOB_BUTTONS[who]);
    });
  }

  test("a tenant's list holds only its own tenant's jobs, whatever the URL asks for", async ({ page, submit }) => {
    const globexJob = await submit({
      tenantId: "globex",
      type: "report.generate",
      queue: HELD_QUEUE,
      params: { report: "daily_usage", period: "2026-11" },
    });
    await signInAs(page, "acme");
    // Asking for another tenant (or another tenant's job id) in the URL is overridden by the session's tenant.
    await page.goto(`/jobs?q=${globexJob.id}`);
    await expect(page.getByText(`No job has the id ${globexJob.id}`)).toBeVisible();
    await page.goto("/jobs?tenant=globex");
    await expect(page.getByRole("table")).toBeVisible();
    // Tenant members cannot bulk-act: no checkbox column.
    await expect(page.getByRole("table").getByRole("checkbox")).toHaveCount(0);
    // A tenant's list has no Tenant column (every row is its own); the rows shown are the API's, all acme's.
    expect(await page.getByRole("columnheader").allInnerTexts()).not.toContain("Tenant");
    const shown = await page
      .getByRole("table")
      .getByRole("link", { name: /^[0-9a-f]{8}$/ })
      .evaluateAll((as) => as.map((a) => a.getAttribute("title")));
    expect(shown.length).toBeGreaterThan(0);
    const api = await page.request.get(`/api/jobs?tenant=globex`);
    expect(api.status()).toBe(200);
    const body = (await api.json()) as { jobs: { id: string; tenantId: string }[] };
    expect(body.jobs.length).toBeGreaterThan(0);
    expect(body.jobs.every((j) => j.tenantId === "acme")).toBe(true);
    // And the first rows the page shows are acme's jobs, read one by one.
    for (const id of shown.slice(0, 3)) {
      const one = await page.request.get(`/api/jobs/${id}`);
      expect(((await one.json()) as { job: { tenantId: string } }).job.tenantId).toBe("acme");
    }
  });

  test("signed out: pages send you to sign in, and JSON endpoints answer 401", async ({ page }) => {
    await page.goto("/jobs");
    await expect(page).toHaveURL(/\/sign-in\?next=%2Fjobs$/);
    for (const path of ["/api/jobs", "/api/counts", "/api/dead", "/api/jobs/00000000-0000-4000-8000-000000000000"]) {
      const res = await page.request.get(path);
      expect(res.status(), path).toBe(401);
      expect(await res.json()).toEqual({ error: { code: "unauthenticated", message: "Sign in to do this." } });
    }
  });

  test("a wrong password is refused with a plain message, and signing out ends the session", async ({ page }) => {
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill("operator@jobscope.local");
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").filter({ hasText: /\S/ })).toHaveText("That email and password do not match an account.");
    await signInAs(page, "operator");
    await signOut(page);
    await expect(page).toHaveURL(/\/sign-in/);
    expect((await page.request.get("/api/jobs")).status()).toBe(401);
  });
});

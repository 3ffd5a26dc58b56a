import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { SIGNED_OUT, signInAs } from "./auth";
import { shortId } from "../lib/jobs/short-id";
import { expect as baseExpect, CONSOLE_PAGES, HELD_QUEUE, jobRow, SPEC_ACTOR, test } from "./fixtures";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

// The console's craft: a list that holds still, keyboard paths, dialogs that
// open on the safe choice, the theme, the outage banner, phones, and counts that never mislead.
const expect = baseExpect.configure({ timeout: 15_000 });
const REPORT = { type: "report.generate", params: { report: "daily_usage", period: "2026-11" } } as const;
const ownQueue = () => `${HELD_QUEUE}-${randomBytes(4).toString("hex")}`;
const rows = (page: Page) => page.getByRole("table").getByRole("checkbox", { name: /^Select job / });

/** A dead job of a group of its own. */
async function deadJob(history: (agoMs: number) => import("../lib/demo/history").History) {
  const errorClass = `E2eCraft${randomBytes(4).toString("hex")}`;
  const h = await history(3_000).submit({ tenantId: "acme", queue: HELD_QUEUE, maxAttempts: 1, ...REPORT }, SPEC_ACTOR);
  await h.run("w-e2e-craft", 500, 100);
  await h.step("abandon", 500, undefined, { error: { class: errorClass, message: "e2e: permanent" } });
  return { id: h.id, errorClass };
}

test.describe("the console's craft", () => {
  test("the live list holds still: a new job waits behind a pill until asked for", async ({ page, submit }) => {
    const queue = ownQueue();
    const first = await submit({ tenantId: "acme", queue, ...REPORT });
    await page.goto(`/jobs?queue=${queue}`);
    await expect(rows(page)).toHaveCount(1);

    const second = await submit({ tenantId: "acme", queue, ...REPORT });
    const pill = page.getByRole("button", { name: "Show 1 new job" });
    await expect(pill).toBeVisible();
    // The poll has it, but the rows on screen do not move.
    await expect(rows(page)).toHaveCount(1);
    await expect(page.getByRole("checkbox", { name: `Select job ${first.id}` })).toBeVisible();

    await pill.click();
    await expect(rows(page)).toHaveCount(2);
    await expect(page.getByRole("checkbox", { name: `Select job ${second.id}` })).toBeVisible();
    await expect(pill).toHaveCount(0);
  });

  test("keyboard: / jumps to the lookup, the skip link lands on the results, rows move with the arrows", async ({ page, submit }) => {
    test.setTimeout(90_000);
    const queue = ownQueue();
    const jobs = [await submit({ tenantId: "acme", queue, ...REPORT }), await submit({ tenantId: "acme", queue, ...REPORT })];
    await page.goto(`/jobs?queue=${queue}`);
    await expect(rows(page)).toHaveCount(2);

    // The key's listener comes with hydration, which a loaded machine can finish after the rows
    // render: press again until the page has it (a "/" before then lands on the body, typed nowhere).
    await page.locator("body").click({ position: { x: 5, y: 300 } });
    await expect(async () => {
      await page.keyboard.press("/");
      await expect(page.getByLabel("Job link, id, key or phrase")).toBeFocused({ timeout: 1_000 });
    }).toPass({ timeout: 20_000 });

    await page.goto(`/jobs?queue=${queue}`);
    await expect(rows(page)).toHaveCount(2);
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to content" });
    await expect(skip).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.locator("#results")).toBeFocused();

    // From the top of the page, the filters are one disclosure: the first job is a few Tab presses away.
    await page.goto("/jobs?limit=5");
    await expect(page.locator("#results tbody tr").first()).toBeVisible();
    let presses = 0;
    for (; presses < 40; presses++) {
      await page.keyboard.press("Tab");
      if (await page.evaluate(() => !!document.activeElement?.closest("#results tbody"))) break;
    }
    // 30: an operator's header has one more stop since "Submit a job" (the clean-up sits in the filters' disclosure).
    expect(presses).toBeLessThanOrEqual(30);

    await page.goto(`/jobs?queue=${queue}`);
    const newest = page.getByRole("checkbox", { name: `Select job ${jobs[1]!.id}` });
    // The arrows' listener comes with hydration too.
    await expect(async () => {
      await newest.focus();
      await page.keyboard.press("ArrowDown");
      await expect(page.getByRole("checkbox", { name: `Select job ${jobs[0]!.id}` })).toBeFocused({ timeout: 1_000 });
    }).toPass({ timeout: 20_000 });
    await page.keyboard.press("Home");
    await expect(newest).toBeFocused();
  });

  test("dialogs open on the safe choice: Enter on a replay's dry run does not replay", async ({ page, history, db }) => {
    const { id, errorClass } = await deadJob(history);
    await page.goto("/dead");
    await page.getByRole("button", { name: `Replay group report.generate · ${errorClass}` }).click();
    const dialog = page.getByRole("dialog");
    await expect(dialog.getByText(/^Will replay 1, skip 0/)).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Go back" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(dialog).toBeHidden();
    expect((await jobRow(db, id)).state).toBe("dead");

    // On the job page, a destructive action asks first, and its question opens on "Go back".
    const h = await history(60_000).submit({ tenantId: "acme", queue: HELD_QUEUE, ...REPORT }, SPEC_ACTOR);
    await page.goto(`/jobs/${h.id}`);
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    await expect(page.getByRole("dialog").getByRole("button", { name: "Go back" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("dialog")).toBeHidden();
    expect((await jobRow(db, h.id)).state).toBe("queued");
  });

  test("the outage banner tells a silent database from a failing server", async ({ page }) => {
    let answer: "db" | "server" | "up" = "db";
    await page.route("**/api/integrity/health", (route) =>
      answer === "up"
        ? route.fallback()
        : answer === "db"
          ? route.fulfill({ status: 503, json: { ok: false, error: { code: "database_unavailable", message: "The database is not answering." } } })
          : route.fulfill({ status: 500, json: { error: { code: "internal", message: "boom" } } }),
    );
    await page.goto("/workers");
    const banner = page.getByTestId("db-status-banner");
    await expect(banner).toContainText("The database is not answering.");
    answer = "server";
    await expect(banner).toContainText("The console's server is failing.");
    await expect(banner).toContainText("HTTP 500");
    answer = "up";
    await expect(banner).toHaveCount(0);
  });

  test("an outage shows in the banner within seconds, and a polled page says its polls fall behind", async ({ page }) => {
    let down = false;
    await page.route("**/api/integrity/health", (route) =>
      down
        ? route.fulfill({ status: 503, json: { ok: false, error: { code: "database_unavailable", message: "The database is not answering." } } })
        : route.fallback(),
    );
    // The workers' poll answers once, then never again (a server that stopped answering in time).
    let answered = 0;
    await page.route("**/api/insight/workers", (route) => (answered++ === 0 ? route.fallback() : new Promise<void>(() => {})));
    await page.goto("/workers");
    await expect(page.getByTestId("freshness")).toContainText("Live");
    await expect(page.getByTestId("freshness")).toContainText("falling behind", { timeout: 12_000 });

    down = true;
    // Within a few seconds (it polled every 15 s before), whatever the page polls.
    await expect(page.getByTestId("db-status-banner")).toContainText("The database is not answering.", { timeout: 7_000 });
    await page.unrouteAll({ behavior: "ignoreErrors" });
  });

  test("a page asked for while the database is unreachable says so, and comes back by itself", async ({ page, db }) => {
    await page.goto("/workers");
    await expect(page.getByRole("heading", { level: 1, name: "Workers" })).toBeVisible();
    // The console's own database role cannot log in: for the console, the database is gone.
    await execute(db, sql`ALTER ROLE jobscope_app NOLOGIN`);
    try {
      await execute(db, sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'jobscope_app'`);
      await expect(page.getByTestId("db-status-banner")).toContainText("The database is not answering.");
      await page.goto("/jobs");
      await expect(page.getByRole("heading", { level: 1, name: "The database is unreachable" })).toBeVisible();
      await expect(page.getByRole("alert").filter({ hasText: "It will recover by itself" })).toBeVisible();
    } finally {
      await execute(db, sql`ALTER ROLE jobscope_app LOGIN`);
    }
    // No click: the page asks every 3 s and renders itself again once the database answers.
    await expect(page.getByRole("heading", { level: 1, name: "Jobs" })).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId("db-status-banner")).toHaveCount(0);
  });

  test("the overview shows no share of a capped count", async ({ page }) => {
    const at = new Date().toISOString();
    const counts = { queued: 10, claimed: 0, running: 5, paused: 0, cancelling: 0, retry_wait: 0, succeeded: 1000, dead: 20, cancelled: 0 };
    let capped: string[] = ["succeeded"];
    await page.route("**/api/counts", (route) => route.fulfill({ json: { counts, capped, total: 1035, at } }));
    await page.goto("/");
    await expect(page.getByLabel("succeeded: 1,000+")).toBeVisible();
    await expect(page.getByText("so shares are not shown")).toBeVisible();
    await expect(page.getByRole("list", { name: "Jobs by state" })).not.toContainText("%");

    capped = [];
    await page.reload();
    await expect(page.getByLabel("succeeded: 1,000", { exact: true })).toBeVisible();
    await expect(page.getByLabel("dead: 20", { exact: true })).toContainText("2%");
  });
});

test.describe("the console's craft, per person", () => {
  test.use({ storageState: SIGNED_OUT });

  test("the theme follows the system until chosen, and the choice sticks", async ({ page }) => {
    await page.emulateMedia({ colorScheme: "dark" });
    await signInAs(page, "operator", "/workers");
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const dark = await background();
    await page.getByTestId("signed-in-as").click();
    await page.getByLabel("Theme").selectOption("light");
    await expect.poll(background).not.toBe(dark);
    const light = await background();
    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
    expect(await background()).toBe(light);
    // A page that does not exist wears the chosen theme too (it was half the system's).
    expect((await page.goto("/no-such-page"))?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "No such page" })).toBeVisible();
    expect(await background()).toBe(light);
    await page.goto("/workers");
    await page.getByTestId("signed-in-as").click();
    await page.getByLabel("Theme").selectOption("system");
    await expect.poll(background).toBe(dark);
  });

  test("a tenant's pages never call the staff-only drift endpoint", async ({ page }) => {
    const drift: string[] = [];
    page.on("request", (r) => r.url().includes("/api/insight/drift") && drift.push(r.url()));
    await signInAs(page, "acme");
    // The layout's other poll, the outage banner's health check, starts in the same render as the
    // drift alarm would: once its answer is back, a drift request would have been sent.
    const health = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/integrity/health");
    await page.goto("/jobs");
    await expect(page.getByRole("heading", { level: 1, name: "Jobs" })).toBeVisible();
    await health;
    expect(drift).toEqual([]);
  });

  test("phones: the header is a menu, jobs are compact rows, and no page is wider than the screen", async ({ page, submit }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width: 390, height: 844 });
    const queue = ownQueue();
    const job = await submit({ tenantId: "acme", queue, ...REPORT });
    await signInAs(page, "admin", `/jobs?queue=${queue}`);
    await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
    await page.getByRole("button", { name: "Menu" }).click();
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Workers" })).toBeVisible();

    const row = page.getByRole("list", { name: "Jobs, newest first" }).getByRole("listitem");
    await expect(row).toHaveCount(1);
    await expect(row).toContainText("report.generate");
    await expect(row).toContainText("queued");
    await expect(row).toContainText("acme");
    // The id people quote, as the table's Job column prints it.
    await expect(row).toContainText(shortId(job.id));
    await expect(row).toContainText(/submitted \d+ s ago/);
    await expect(row).toContainText(/so far/);

    for (const path of [...CONSOLE_PAGES, `/jobs/${job.id}`]) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
  });
});

import type { Page } from "@playwright/test";
import { expect, HELD_QUEUE, test } from "./fixtures";
import { TZ_COOKIE } from "../lib/time-format";

// Times in the viewer's time zone (a cookie the server reads too), UTC on hover,
// with no hydration mismatch between the server's render and the browser's.

/** Page errors and console errors that say React's hydration went wrong (#418 in a production build). */
function watchHydration(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error" && /hydrat|#418|#423|#425/i.test(m.text())) errors.push(m.text());
  });
  return errors;
}

const zoneCookie = (value: string, url: string | undefined) => ({ name: TZ_COOKIE, value, url: url! });
const tzCookie = async (page: Page) => (await page.context().cookies()).find((c) => c.name === TZ_COOKIE)?.value;
/** The first time in the page's table (of those `selector` picks) whose text ends in `zone`. */
const tableTime = (page: Page, zone: RegExp, selector = "time") => page.getByRole("table").locator(selector).filter({ hasText: zone }).first();

test.describe("times in the viewer's time zone", () => {
  test("the cookie's zone on the job page and the audit page, UTC on hover, no hydration error", async ({ page, context, submit, baseURL }) => {
    const job = await submit({ tenantId: "acme", type: "report.generate", queue: HELD_QUEUE, params: { report: "daily_usage", period: "2026-11" } });
    await context.addCookies([zoneCookie("Asia/Tokyo", baseURL)]);
    const errors = watchHydration(page);

    await page.goto(`/jobs/${job.id}`);
    const created = page.locator(`time[datetime="${job.createdAt.toISOString()}"]`).first();
    await expect(created).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d GMT\+9$/);
    await expect(created).toHaveAttribute("title", /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    // The same instant: Tokyo is 9 h ahead of the UTC time on hover.
    const shown = Date.parse(`${(await created.textContent())!.slice(0, 19).replace(" ", "T")}Z`);
    const utc = Date.parse(`${(await created.getAttribute("title"))!.slice(0, 19).replace(" ", "T")}Z`);
    expect(shown - utc).toBe(9 * 3_600_000);
    await expect(page.getByRole("table", { name: /Transitions applied to this job/ })).toContainText("GMT+9");

    await page.goto("/audit");
    await expect(tableTime(page, /GMT\+9$/, "time[title$=' UTC']")).toBeVisible();
    expect(errors).toEqual([]);
  });

  test("an invalid cookie means UTC", async ({ page, context, submit, baseURL }) => {
    const job = await submit({ tenantId: "acme", type: "report.generate", queue: HELD_QUEUE, params: { report: "daily_usage", period: "2026-11" } });
    await context.addCookies([zoneCookie("Mars%2FOlympus", baseURL)]);
    const errors = watchHydration(page);
    await page.goto(`/jobs/${job.id}`);
    await expect(page.locator(`time[datetime="${job.createdAt.toISOString()}"]`).first()).toHaveText(/ UTC$/);
    expect(errors).toEqual([]);
  });

  test.describe("a first visit", () => {
    test.use({ timezoneId: "Asia/Kolkata" });

    test("takes the browser's zone, and a choice in the account menu sticks", async ({ page, context }) => {
      await context.clearCookies({ name: TZ_COOKIE });
      const errors = watchHydration(page);
      await page.goto("/audit");
      // Chromium names it by its older alias, Asia/Calcutta.
      await expect.poll(() => tzCookie(page)).toMatch(/^Asia%2F(Kolkata|Calcutta)$/);
      await expect(tableTime(page, /GMT\+5:30$/)).toBeVisible();

      await page.getByTestId("signed-in-as").click();
      await page.getByLabel("Time zone").selectOption("America/New_York");
      await expect(tableTime(page, /GMT-[45]$/)).toBeVisible();
      await page.reload();
      await expect(tableTime(page, /GMT-[45]$/)).toBeVisible();
      const cookie = (await page.context().cookies()).find((c) => c.name === TZ_COOKIE)!;
      expect(cookie.value).toBe("America%2FNew_York");
      // A year, give or take the test's own seconds.
      expect(cookie.expires * 1000 - Date.now()).toBeGreaterThan(364 * 86_400_000);
      expect(errors).toEqual([]);
    });
  });
});

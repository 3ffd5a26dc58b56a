import { expect, test, type Page } from "@playwright/test";
import { STATES } from "../lib/fsm/table";

const COUNT = /^([a-z_]+): ([\d,]+)$/;

function parseCount(label: string | null): { name: string; n: number } {
  const match = COUNT.exec(label ?? "");
  if (!match?.[1] || match[2] === undefined) throw new Error(`not a count: ${JSON.stringify(label)}`);
  return { name: match[1], n: Number(match[2].replaceAll(",", "")) };
}

async function ageSeconds(page: Page): Promise<number> {
  const text = await page.getByText(/^Updated \d+ s ago$/).textContent();
  return Number(/(\d+)/.exec(text ?? "")?.[1]);
}

const pauseButton = (page: Page) => page.getByRole("button", { name: "Pause updates" });
const resumeButton = (page: Page) => page.getByRole("button", { name: "Resume updates" });
const stateList = (page: Page) => page.getByRole("list", { name: "Jobs by state" });

test.describe("overview", () => {
  test("shows one count per state, in the machine's order, that sum to the total", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
    for (const state of STATES) {
      await expect(page.getByLabel(new RegExp(`^${state}: [\\d,]+$`))).toBeVisible();
    }
    // Freeze the page so every number below comes from the same response.
    await pauseButton(page).click();
    await expect(resumeButton(page)).toBeVisible();

    const labels = await stateList(page)
      .getByRole("listitem")
      .evaluateAll((items) => items.map((item) => item.getAttribute("aria-label")));
    const counts = labels.map(parseCount);
    expect(counts.map((c) => c.name)).toEqual([...STATES]);
    for (const { n } of counts) expect(Number.isInteger(n) && n >= 0).toBe(true);

    const total = parseCount(await page.getByLabel(/^total: [\d,]+$/).getAttribute("aria-label")).n;
    expect(total).toBe(counts.reduce((sum, c) => sum + c.n, 0));
    // The demo seed submits jobs, so an empty overview here means the counts are not wired up.
    expect(total).toBeGreaterThan(0);
    await expect(page.getByText("No jobs yet")).toHaveCount(0);
  });

  test("pausing stops the refresh and resuming restarts it", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByText(/^Updated \d+ s ago$/)).toBeVisible();
    await expect(page.getByText("Live", { exact: true })).toBeVisible();

    // The button says what it will do: pause while live, resume while paused.
    await pauseButton(page).click();
    await expect(pauseButton(page)).toHaveCount(0);
    await expect(page.getByText("Paused", { exact: true })).toBeVisible();
    // Live polling refreshes every 2 s, so the age only passes 5 s if polling really stopped.
    await expect.poll(() => ageSeconds(page), { timeout: 10_000 }).toBeGreaterThanOrEqual(5);

    await resumeButton(page).click();
    await expect(pauseButton(page)).toBeVisible();
    await expect.poll(() => ageSeconds(page), { timeout: 6_000 }).toBeLessThanOrEqual(2);
  });

  test("the counts API answers a number for every state and their sum", async ({ request }) => {
    const res = await request.get("/api/counts");
    expect(res.status()).toBe(200);
    expect(res.headers()["cache-control"]).toContain("no-store");
    const body = (await res.json()) as { counts: Record<string, unknown>; total: unknown; at: unknown };
    expect(Object.keys(body.counts).sort()).toEqual([...STATES].sort());
    let sum = 0;
    for (const state of STATES) {
      const n = body.counts[state];
      expect(typeof n === "number" && Number.isInteger(n) && n >= 0, `${state}: ${String(n)}`).toBe(true);
      sum += n as number;
    }
    expect(body.total).toBe(sum);
    expect(Number.isNaN(Date.parse(String(body.at)))).toBe(false);
  });

  test("shows an error without leaking server details, keeps the counts it has, and recovers", async ({ page }) => {
    let failing = true;
    await page.route("**/api/counts", async (route) => {
      if (!failing) return route.fallback();
      await route.fulfill({
        status: 500,
        json: { error: { code: "internal", message: "Could not count jobs: the database did not answer." } },
      });
    });
    await page.goto("/");
    // The counts came with the page; the polls after it fail.
    const alert = page.getByRole("alert").filter({ hasText: "Could not refresh the counts; showing the last ones received." });
    await expect(alert).toBeVisible({ timeout: 30_000 });
    await expect(alert).toContainText("the database did not answer");
    await expect(page.getByLabel(new RegExp(`^${STATES[0]}: [\\d,]+$`))).toBeVisible();

    failing = false;
    await alert.getByRole("button", { name: "Try again" }).click();
    await expect(alert).toHaveCount(0);
    await expect(page.getByLabel(new RegExp(`^${STATES[0]}: [\\d,]+$`))).toBeVisible();
  });

  test("the counts and the first window's charts come with the page, not after a poll", async ({ page }) => {
    // The polls never answer: whatever shows came with the page.
    await page.route("**/api/counts", () => new Promise<void>(() => {}));
    await page.route("**/api/insight/overview**", () => new Promise<void>(() => {}));
    await page.goto("/");
    await expect(page.getByLabel(new RegExp(`^${STATES[0]}: [\\d,]+$`))).toBeVisible();
    await expect(page.getByLabel("Throughput chart")).toHaveAttribute("aria-busy", "false");
    // In the server's HTML itself, before any script ran.
    const html = await (await page.request.get("/")).text();
    expect(html).toContain('aria-label="Throughput chart" aria-busy="false"');
    await page.unrouteAll({ behavior: "ignoreErrors" });
  });

  test("each job type's history over days: throughput, failure rate and run time", async ({ page }) => {
    await page.goto("/types?range=24h");
    await expect(page.getByRole("heading", { level: 1, name: "Job types" })).toBeVisible();
    // The seeded day of histories was rolled up when the e2e server started (scripts/start.ts).
    const busiest = page.getByRole("table").getByRole("link").first();
    const type = (await busiest.textContent())!;
    await busiest.click();
    await expect(page.getByRole("heading", { level: 1, name: type })).toBeVisible();
    await expect(page.getByRole("region", { name: "Throughput and failure rate" }).getByRole("application")).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Range" }).getByRole("link", { name: "24h" })).toHaveAttribute("aria-current", "page");
    await page.getByRole("navigation", { name: "Range" }).getByRole("link", { name: "7d" }).click();
    await expect(page).toHaveURL(/range=7d/);
    await expect(page.getByText(/attempts over the last 7 days, one step per 6 hours/)).toBeVisible();
  });

  test("says so when there are no jobs", async ({ page }) => {
    const zeros = Object.fromEntries(STATES.map((state) => [state, 0]));
    await page.route("**/api/counts", (route) => route.fulfill({ json: { counts: zeros, capped: [], total: 0, at: new Date().toISOString() } }));
    await page.goto("/");
    await expect(page.getByText("No jobs yet")).toBeVisible();
    await expect(page.getByLabel("total: 0")).toBeVisible();
    for (const state of STATES) await expect(page.getByLabel(`${state}: 0`)).toBeVisible();
  });
});

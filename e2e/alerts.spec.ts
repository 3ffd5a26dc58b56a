import { randomBytes } from "node:crypto";
import { SIGNED_OUT } from "./auth";
import { expect, test } from "./fixtures";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

const SHOTS = process.env.E2E_SHOTS;

test.describe("alerts", () => {
  test("an operator creates a rule and disables it; a change made elsewhere reaches the page by its poll, not a reload", async ({ page, db }) => {
    const name = `e2e-${randomBytes(4).toString("hex")}`;
    await page.goto("/alerts");
    await expect(page.getByRole("heading", { level: 1, name: "Alerts" })).toBeVisible();
    await expect(page.getByText(/^Updated \d+ s ago$/)).toBeVisible();

    const form = page.getByRole("form", { name: "New alert rule" });
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Webhook URL").fill(`https://hooks.example.com/${name}`);
    await form.getByRole("button", { name: "Create alert rule" }).click();
    await expect(form.getByText("Signing secret (shown once):")).toBeVisible();
    const row = page.getByRole("row").filter({ hasText: name });
    const state = row.getByRole("cell").nth(3);
    await expect(state).toHaveText("enabled");

    await row.getByRole("button", { name: "Disable" }).click();
    await expect(state).toHaveText("disabled");
    expect(await execute(db, sql`SELECT enabled FROM alert_rules WHERE name = ${name}`)).toEqual([{ enabled: false }]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/alerts.png` });

    // Enabled by someone else: the page's poll of GET /api/alerts shows it.
    const polled = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/alerts" && r.status() === 200);
    await execute(db, sql`UPDATE alert_rules SET enabled = true WHERE name = ${name}`);
    await polled;
    await expect(state).toHaveText("enabled", { timeout: 15_000 });
  });

  test.describe("signed out", () => {
    test.use({ storageState: SIGNED_OUT });
    test("GET /api/alerts is refused", async ({ request }) => {
      const res = await request.get("/api/alerts");
      expect(res.status()).toBe(401);
    });
  });
});

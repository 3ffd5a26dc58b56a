import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import type { AxeResults, RunOptions } from "axe-core";
import type { Page } from "@playwright/test";
import type { DemoUser } from "../lib/demo/users";
import { SIGNED_OUT, signInAs } from "./auth";
import { CONSOLE_PAGES, deadJobs, expect, HELD_QUEUE, test } from "./fixtures";

// Every page and dialog, for each kind of role, checked with axe-core: a violation of WCAG 2.1
// A/AA (and axe's best practices) fails the spec. Dark is the same markup in other colours: only
// contrast can differ there, and the admin's pages hold every staff control the operator's and
// support's do, so dark is checked as the admin and as a tenant, on the same visit as light.
test.use({ storageState: SIGNED_OUT });

const PAGES: Record<string, string[]> = {
  // Every page; the jobs list with 10 rows, as for each role.
  admin: [...CONSOLE_PAGES.map((p) => (p === "/jobs" ? "/jobs?limit=10" : p)), "/queues", "/schedules", "/alerts", "/api-docs"],
  operator: ["/", "/jobs?limit=10", "/dead", "/workers", "/rejections", "/state-machine", "/audit", "/integrity", "/api-docs"],
  support: ["/", "/jobs?limit=10", "/queues", "/schedules", "/dead", "/workers", "/rejections", "/state-machine", "/api-docs"],
  acme: ["/jobs?limit=10", "/alerts", "/api-keys", "/api-docs"],
};
const ROLES = Object.keys(PAGES) as DemoUser[];
const IN_DARK: DemoUser[] = ["admin", "acme"];

type Found = { where: string; rule: string; nodes: string[] };

// The axe-core that @axe-core/playwright ships (its version, its rules). Its AxeBuilder.analyze()
// took 2-19 s a scan here, the run itself 0.5-1 s: each call evaluates the 0.6 MB source again,
// opens a blank page to merge the results, and ships every pass back. Run in the page instead:
// injected once per document, the same runOnly tags or rules, only the violations returned.
const fromAxePlaywright = createRequire(createRequire(import.meta.url).resolve("@axe-core/playwright"));
const axeSource = (fromAxePlaywright("axe-core") as { source: string }).source;
type Axe = { run: (context: unknown, options: RunOptions) => Promise<AxeResults> };

/** axe's violations on the page (or in one part of it), in a form a failing assertion can print. */
async function scan(page: Page, where: string, include?: string): Promise<Found[]> {
  // Dark is the same markup in other colours: there only contrast can differ.
  const scheme = await page.evaluate(() => (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
  where = `${scheme} ${where}`;
  const options: RunOptions = {
    runOnly:
      scheme === "dark"
        ? { type: "rule", values: ["color-contrast"] }
        : { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
    resultTypes: ["violations"],
  };
  const started = Date.now();
  // Every frame gets axe (as AxeBuilder does), so that axe.run tests their content too.
  for (const frame of page.frames()) if (!(await frame.evaluate(() => "axe" in window))) await frame.evaluate(axeSource);
  const violations = await page.evaluate(
    async ({ include, options }) => {
      const { axe } = window as unknown as { axe: Axe };
      const { violations } = await axe.run(include ? { include: [include] } : document, options);
      return violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
    },
    { include, options },
  );
  console.log(`axe ${where}: ${Date.now() - started} ms`);
  return violations.map((v) => ({ where, rule: `${v.id}: ${v.help}`, nodes: v.nodes }));
}

/**
 * `scan` in light and, with `dark`, again in dark on the same page: the theme follows the
 * browser's colour scheme through CSS alone (app/theme.css; no script reads it), so switching the
 * emulated scheme recolours the page as loading it in dark would. axe reads the colours once the
 * transitions the switch started have ended.
 */
async function scanBoth(page: Page, dark: boolean, where: string, include?: string): Promise<Found[]> {
  const found = await scan(page, where, include);
  if (!dark) return found;
  const settled = () =>
    page.waitForFunction(() => document.getAnimations().every((a) => !(a instanceof CSSTransition) || a.playState === "finished"));
  await page.emulateMedia({ colorScheme: "dark" });
  await settled();
  found.push(...(await scan(page, where, include)));
  await page.emulateMedia({ colorScheme: "light" });
  await settled();
  return found;
}

/** A page with its data on screen: the heading is there and the first polls have answered. */
async function open(page: Page, path: string) {
  await page.goto(path);
  await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
  await expect(page.locator('[aria-busy="true"], [role="status"]:has-text("Loading")')).toHaveCount(0, { timeout: 15_000 });
}

test.describe("accessibility", () => {
  for (const who of ROLES) {
    const dark = IN_DARK.includes(who);
    test(`${who}: every page, menu and dialog has no axe violation, in light${dark ? " and dark" : ""}`, async ({ page, pausedJob, history }) => {
      // axe reads every element of each page: on a loaded 2-core machine a role's pages take minutes.
      test.setTimeout(480_000);
      // A held queue of its own: the bulk dialog below selects this job on its queue's first page,
      // whatever the other specs left on the shared held queue.
      const queue = `${HELD_QUEUE}-a11y-${randomBytes(4).toString("hex")}`;
      const jobId = await pausedJob("w-e2e-a11y", queue);

      await signInAs(page, who);
      await page.emulateMedia({ colorScheme: "light" });
      const found: Found[] = [];
      for (const path of [...PAGES[who]!, `/jobs/${jobId}`]) {
        await open(page, path);
        found.push(...(await scanBoth(page, dark, path)));
      }

      // The account menu, open.
      await page.getByTestId("signed-in-as").click();
      found.push(...(await scanBoth(page, dark, "account menu", "header")));
      await page.keyboard.press("Escape");

      // The confirmation before a destructive action.
      if (who !== "support") {
        await open(page, `/jobs/${jobId}`);
        await page.getByRole("button", { name: "Cancel", exact: true }).click();
        await expect(page.getByRole("dialog")).toBeVisible();
        found.push(...(await scanBoth(page, dark, "cancel dialog", "dialog")));
        await page.getByRole("button", { name: "Go back" }).click();
      }
      if (who === "admin" || who === "operator") {
        // A bulk action's dry run, and a replay's.
        await open(page, `/jobs?queue=${queue}`);
        await page.getByRole("checkbox", { name: `Select job ${jobId}` }).check();
        await page.getByRole("group", { name: "Actions on the selection" }).getByRole("button").first().click();
        await expect(
          page
            .getByRole("dialog")
            .getByText(/^Will \w+ \d+, skip \d+$/)
            .first(),
        ).toBeVisible();
        found.push(...(await scanBoth(page, dark, "bulk dialog", "dialog")));
        await page.getByRole("dialog").getByRole("button", { name: "Go back" }).click();

        // A dead job of its own, so that there is something to replay whatever other specs replayed.
        await deadJobs(history, 1);
        await open(page, "/dead");
        await page.getByRole("button", { name: "Replay all" }).click();
        await expect(page.getByRole("dialog").getByText(/^Will replay/)).toBeVisible();
        found.push(...(await scanBoth(page, dark, "replay dialog", "dialog")));
        await page.getByRole("dialog").getByRole("button", { name: "Go back" }).click();
      }
      expect(found, JSON.stringify(found, null, 2)).toEqual([]);
    });
  }

  test("the sign-in page, and the phone layout's menu, have no axe violation", async ({ page }) => {
    await page.emulateMedia({ colorScheme: "light" });
    await page.goto("/sign-in");
    expect(await scanBoth(page, true, "/sign-in")).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await signInAs(page, "operator");
    await open(page, "/jobs");
    await page.getByRole("button", { name: "Menu" }).click();
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    expect(await scan(page, "phone /jobs with the menu open")).toEqual([]);
  });
});

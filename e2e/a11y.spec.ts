import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import type { AxeResults, RunOptions } from "axe-core";
import type { Page } from "@playwright/test";
import type { DemoUser } from "../lib/demo/users";
import { SIGNED_OUT, signInAs } from "./auth";
import { CONSOLE_PAGES, deadJobs, expect, HELD_QUEUE, test } from "./fixtures";

// Every page and dialog, for each kind of role, in both themes, checked with axe-core:
// any violation of WCAG 2.1 A/AA (and axe's best practices) fails the spec.
test.use({ storageState: SIGNED_OUT });

const PAGES: Record<string, string[]> = {
  // Every page; the jobs list with 10 rows, as for each role.
  admin: [...CONSOLE_PAGES.map((p) => (p === "/jobs" ? "/jobs?limit=10" : p)), "/queues", "/schedules", "/alerts", "/api-docs"],
  operator: ["/", "/jobs?limit=10", "/dead", "/workers", "/rejections", "/state-machine", "/audit", "/integrity", "/api-docs"],
  support: ["/", "/jobs?limit=10", "/queues", "/schedules", "/dead", "/workers", "/rejections", "/state-machine", "/api-docs"],
  acme: ["/jobs?limit=10", "/alerts", "/api-keys", "/api-docs"],
};
const ROLES = Object.keys(PAGES) as DemoUser[];
const SCHEMES = ["light", "dark"] as const;

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

/** A page with its data on screen: the heading is there and the first polls have answered. */
async function open(page: Page, path: string) {
  await page.goto(path);
  await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
  await expect(page.locator('[aria-busy="true"], [role="status"]:has-text("Loading")')).toHaveCount(0, { timeout: 15_000 });
}

test.describe("accessibility", () => {
  for (const who of ROLES)
    for (const scheme of SCHEMES) {
      // Dark is the same markup in other colours, and the admin's pages hold every staff control the
      // operator's and support's do: dark is scanned as the admin and as a tenant (a run of all eight
      // took over 20 minutes on the shared 2-core machine).
      if (scheme === "dark" && (who === "operator" || who === "support")) continue;
      test(`${who}, ${scheme}: every page, menu and dialog has no axe violation`, async ({ page, pausedJob, history }) => {
        // axe reads every element of each page: on a loaded 2-core machine a role's pages take minutes.
        test.setTimeout(480_000);
        // A held queue of its own: the bulk dialog below selects this job on its queue's first page,
        // whatever the other specs left on the shared held queue.
        const queue = `${HELD_QUEUE}-a11y-${randomBytes(4).toString("hex")}`;
        const jobId = await pausedJob("w-e2e-a11y", queue);

        await signInAs(page, who);
        const found: Found[] = [];
        {
          await page.emulateMedia({ colorScheme: scheme });
          for (const path of [...PAGES[who]!, `/jobs/${jobId}`]) {
            await open(page, path);
            found.push(...(await scan(page, `${scheme} ${path}`)));
          }

          // The account menu, open.
          await page.getByTestId("signed-in-as").click();
          found.push(...(await scan(page, `${scheme} account menu`, "header")));
          await page.keyboard.press("Escape");

          // The confirmation before a destructive action.
          if (who !== "support") {
            await open(page, `/jobs/${jobId}`);
            await page.getByRole("button", { name: "Cancel", exact: true }).click();
            await expect(page.getByRole("dialog")).toBeVisible();
            found.push(...(await scan(page, `${scheme} cancel dialog`, "dialog")));
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
            found.push(...(await scan(page, `${scheme} bulk dialog`, "dialog")));
            await page.getByRole("dialog").getByRole("button", { name: "Go back" }).click();

            // A dead job of its own, so that there is something to replay whatever other specs replayed.
            await deadJobs(history, 1);
            await open(page, "/dead");
            await page.getByRole("button", { name: "Replay all" }).click();
            await expect(page.getByRole("dialog").getByText(/^Will replay/)).toBeVisible();
            found.push(...(await scan(page, `${scheme} replay dialog`, "dialog")));
            await page.getByRole("dialog").getByRole("button", { name: "Go back" }).click();
          }
        }
        expect(found, JSON.stringify(found, null, 2)).toEqual([]);
      });
    }

  test("the sign-in page, and the phone layout's menu, have no axe violation", async ({ page }) => {
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto("/sign-in");
      expect(await scan(page, `${scheme} /sign-in`)).toEqual([]);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await signInAs(page, "operator");
    await open(page, "/jobs");
    await page.getByRole("button", { name: "Menu" }).click();
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    expect(await scan(page, "phone /jobs with the menu open")).toEqual([]);
  });
});

import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { enqueue } from "../lib/jobs/enqueue";
import { expect as baseExpect, HELD_QUEUE, SPEC_ACTOR, test } from "./fixtures";

// Navigations and polls wait on a server that may share its CPUs with builds and other suites:
// allow more than the default 5 s before calling a page wrong.
const expect = baseExpect.configure({ timeout: 15_000 });

/** A queue of this test's own (no worker consumes it), so the list under `queue=` shows only its jobs. */
const ownQueue = () => `${HELD_QUEUE}-${randomBytes(4).toString("hex")}`;
const REPORT = { type: "report.generate", params: { report: "daily_usage", period: "2026-11" } } as const;
const RENDER = { type: "media.render", params: { assetId: "asset-1", frames: 10 } } as const;

/** The full ids of the rows on screen, top to bottom (each row's checkbox names its job). */
async function shownIds(page: Page): Promise<string[]> {
  const labels = await page
    .getByRole("table")
    .getByRole("checkbox", { name: /^Select job / })
    .evaluateAll((boxes) => boxes.map((b) => b.getAttribute("aria-label") ?? ""));
  return labels.map((l) => l.replace("Select job ", ""));
}

const sorted = (ids: string[]) => [...ids].sort();

test.describe("jobs list", () => {
  test("filters by state and type, counts each tab, and keeps the filters in the URL", async ({ page, submit, history }) => {
    const queue = ownQueue();
    const queuedReports = [await submit({ tenantId: "acme", queue, ...REPORT }), await submit({ tenantId: "acme", queue, ...REPORT })];
    const queuedRenders = [await submit({ tenantId: "globex", queue, ...RENDER })];
    const dead = [];
    for (const input of [REPORT, REPORT, RENDER]) {
      const h = await history(3_600_000).submit({ tenantId: "acme", queue, ...input }, SPEC_ACTOR);
      await h.run("w-e2e-list", 1_000);
      await h.step("abandon", 500, undefined, { error: { class: "E2ePermanent", message: "bad input" } });
      dead.push(h.id);
    }

    await page.goto(`/jobs?queue=${queue}`);
    await expect(page.getByRole("heading", { level: 1, name: "Jobs" })).toBeVisible();
    await expect.poll(() => shownIds(page).then(sorted)).toEqual(sorted([...queuedReports, ...queuedRenders].map((j) => j.id).concat(dead)));
    const tabs = page.getByRole("navigation", { name: "Job states" });
    await expect(tabs.getByRole("link", { name: "All: 6" })).toBeVisible();
    await expect(tabs.getByRole("link", { name: "queued: 3" })).toBeVisible();
    await expect(tabs.getByRole("link", { name: "dead: 3" })).toBeVisible();

    await tabs.getByRole("link", { name: /^dead:/ }).click();
    await expect(page).toHaveURL(/[?&]state=dead(&|$)/);
    await expect(tabs.getByRole("link", { name: /^dead:/ })).toHaveAttribute("aria-current", "page");
    await expect.poll(() => shownIds(page).then(sorted)).toEqual(sorted(dead));

    await page.getByLabel("Type", { exact: true }).selectOption("media.render");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(/type=media\.render/);
    await expect.poll(() => shownIds(page)).toEqual([dead[2]]);
    await expect(tabs.getByRole("link", { name: "queued: 1" })).toBeVisible();
    await expect(page.getByRole("table").getByText("E2ePermanent")).toBeVisible();

    // A shared link (here: a reload) shows the same list with the same filters filled in.
    const url = page.url();
    expect(url).toContain(`queue=${queue}`);
    await page.reload();
    await expect.poll(() => shownIds(page)).toEqual([dead[2]]);
    await expect(page.getByLabel("Type", { exact: true })).toHaveValue("media.render");
    await expect(page.getByLabel("Queue", { exact: true })).toHaveValue(queue);
    await expect(tabs.getByRole("link", { name: /^dead:/ })).toHaveAttribute("aria-current", "page");

    await tabs.getByRole("link", { name: /^queued:/ }).click();
    await expect.poll(() => shownIds(page)).toEqual([queuedRenders[0]!.id]);
  });

  test("pages to older and newer jobs with keyset cursors", async ({ page, history }) => {
    const queue = ownQueue();
    // Seven jobs a minute apart, oldest first.
    const made: string[] = [];
    for (let i = 7; i >= 1; i--) made.push((await history(i * 60_000).submit({ tenantId: "acme", queue, ...REPORT }, SPEC_ACTOR)).id);
    const newestFirst = [...made].reverse();

    await page.goto(`/jobs?queue=${queue}&limit=3`);
    const older = page.getByRole("link", { name: "Older →" });
    const newer = page.getByRole("link", { name: "← Newer" });
    await expect.poll(() => shownIds(page)).toEqual(newestFirst.slice(0, 3));
    await expect(newer).toHaveAttribute("aria-disabled", "true");

    await older.click();
    await expect(page).toHaveURL(/[?&]after=/);
    await expect.poll(() => shownIds(page)).toEqual(newestFirst.slice(3, 6));
    await older.click();
    await expect.poll(() => shownIds(page)).toEqual(newestFirst.slice(6));
    await expect(older).toHaveAttribute("aria-disabled", "true");

    await newer.click();
    await expect(page).toHaveURL(/[?&]before=/);
    await expect.poll(() => shownIds(page)).toEqual(newestFirst.slice(3, 6));
    // The cursor is in the URL too: a reload stays on this page.
    await page.reload();
    await expect.poll(() => shownIds(page)).toEqual(newestFirst.slice(3, 6));
    await newer.click();
    await expect.poll(() => shownIds(page)).toEqual(newestFirst.slice(0, 3));
    await expect(newer).toHaveAttribute("aria-disabled", "true");
  });

  test("finds a job by what people paste (its link, a piece of either end of its id, its key); one match opens it", async ({ page, db }) => {
    const queue = ownQueue();
    const key = `e2e-key-${randomBytes(6).toString("hex")}`;
    // Two jobs submitted within the same 65.5 s: their ids start alike (the first 8 digits are the submit time).
    const at = (Math.floor(Date.now() / 65_536) - 1) * 65_536 + 1_000;
    const { job } = await enqueue(db, { tenantId: "umbrella", queue, idempotencyKey: key, ...REPORT }, SPEC_ACTOR, { at: new Date(at) });
    const { job: other } = await enqueue(db, { tenantId: "umbrella", queue, ...REPORT }, SPEC_ACTOR, { at: new Date(at + 1) });
    const box = page.getByLabel("Job link, id, key or phrase");

    // A pasted link opens its job at once, from any tab.
    await page.goto("/jobs?state=dead");
    await box.fill(`http://127.0.0.1:3000/jobs/${job.id}`);
    await box.press("Enter");
    await expect(page).toHaveURL(`/jobs/${job.id}`);
    // So do the last 12 characters of its id, and its idempotency key.
    for (const typed of [job.id.slice(-12).toUpperCase(), key]) {
      await page.goto("/jobs");
      await box.fill(typed);
      await box.press("Enter");
      await expect(page).toHaveURL(`/jobs/${job.id}`);
    }

    // A piece two jobs share lists them, marking what matched.
    await page.goto(`/jobs?queue=${queue}`);
    await box.fill(job.id.slice(0, 8));
    await box.press("Enter");
    await expect(page).toHaveURL(new RegExp(`[?&]q=${job.id.slice(0, 8)}`));
    await expect.poll(() => shownIds(page).then(sorted)).toEqual(sorted([job.id, other.id]));
    await expect(page.getByLabel(`id starts with ${job.id.slice(0, 8)}`)).toHaveCount(2);

    // A miss says what was looked for: no filter was set, so it does not blame the filters.
    await page.goto("/jobs");
    await box.fill("no-such-key-anywhere");
    await box.press("Enter");
    await expect(page.getByText("No job has the id or idempotency key “no-such-key-anywhere”")).toBeVisible();
    await expect(page.getByText("No jobs match these filters")).toHaveCount(0);
  });

  test("a link's filters that cannot be applied are named, not dropped in silence", async ({ page }) => {
    await page.goto("/jobs?state=bogus&from=notadate");
    const alert = page.getByRole("alert").filter({ hasText: "not applied" });
    await expect(alert).toContainText("state “bogus” was not applied");
    await expect(alert).toContainText("from is not a filter of this list (did you mean createdFrom?)");
    await alert.getByRole("link", { name: "Open the link without them" }).click();
    await expect(page).toHaveURL(/\/jobs$/);
    await expect(page.getByRole("alert").filter({ hasText: "not applied" })).toHaveCount(0);
  });

  test("the list API answers the same page as the URL, without a cache", async ({ request, submit }) => {
    const queue = ownQueue();
    const job = await submit({ tenantId: "acme", queue, ...REPORT });
    const res = await request.get(`/api/jobs?queue=${queue}`);
    expect(res.status()).toBe(200);
    expect(res.headers()["cache-control"]).toContain("no-store");
    const body = (await res.json()) as { jobs: { id: string }[]; counts: Record<string, { n: number; capped: boolean }> };
    expect(body.jobs.map((j) => j.id)).toEqual([job.id]);
    expect(body.counts.queued).toEqual({ n: 1, capped: false });
  });
});

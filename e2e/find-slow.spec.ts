import { SIGNED_OUT, signInAs } from "./auth";
import { expect, HELD_QUEUE, OPERATOR, SPEC_ACTOR, test } from "./fixtures";
import { shortId } from "../lib/jobs/short-id";
import type { JobRow } from "../lib/jobs/types";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

// From "acme, export, yesterday, slow", support reaches the job in at most 3 interactions. (How long that
// takes is the console's speed, measured by the benchmarks, not judged by a test.)
test.use({ storageState: SIGNED_OUT, timezoneId: "UTC" });

const MIN = 60_000;
const HOUR = 60 * MIN;
// On a queue no e2e worker consumes: the histories stay as written.
const EXPORT = { type: "export.tenant_data", queue: HELD_QUEUE, params: { dataset: "orders", rows: 2_400_000 } } as const;

test.describe("finding the slow one", () => {
  test.describe.configure({ timeout: 120_000 });

  test("support: 'acme export yesterday slow' in the lookup, then the top row: the slow export", async ({ page, history }) => {
    // Submitted in yesterday's first second (UTC); it waited until 4 h ago and ran until a minute ago: longer
    // than any job the demo's day of history created yesterday, whatever the time of day. (Submitted at 08:00,
    // it lost to the demo's still-waiting exports whenever the run came before 11:00 UTC.) A back-dated claim
    // older than the e2e supervisor's 6 h threshold would be reclaimed.
    const now = Date.now();
    const midnight = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate());
    const submitAt = midnight - 24 * HOUR + 1000;
    const h = await history(now - submitAt).submit({ tenantId: "acme", ...EXPORT }, SPEC_ACTOR);
    await (await h.run("w-e2e-find-1", now - 4 * HOUR - submitAt)).step("finish", 4 * HOUR - MIN);
    // Another of yesterday's, cancelled after 5 min.
    const quick = await history(now - submitAt - HOUR).submit({ tenantId: "acme", ...EXPORT }, SPEC_ACTOR);
    await quick.step("cancel", 5 * MIN, OPERATOR);

    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await signInAs(page, "support", "/jobs");
    // The console is up when the list's first poll answers (its client code is running).
    const polled = page.waitForResponse((r) => r.url().includes("/api/jobs") && r.ok());
    await page.goto("/jobs");
    await polled;
    // 1: the question, as support hears it.
    await page.getByLabel("Job link, id, key or phrase").fill("acme export yesterday slow");
    await page.getByLabel("Job link, id, key or phrase").press("Enter");
    // The URL changes once the filtered page has answered (a router push waits for it): slow on a starved machine.
    await expect(page).toHaveURL(/sort=duration/, { timeout: 30_000 });
    const first = page.getByRole("row").nth(1);
    await expect(first.getByRole("link", { name: shortId(h.id) })).toBeVisible();
    // 2: the top row.
    await first.getByRole("link", { name: shortId(h.id) }).click();
    await expect(page).toHaveURL(`/jobs/${h.id}`, { timeout: 30_000 });
    await expect(page.getByRole("region", { name: "Why was this slow" })).toBeVisible();
    // Page errors on the way are recorded (a React hydration mismatch, #418, was seen on this path and is
    // not yet traced: the time zone list was one cause and is fixed), not judged.
    for (const e of errors) test.info().annotations.push({ type: "page error", description: e });

    // The filters it applied are the form's: the tenant picker, the type, the dates, longest first.
    // "Took longer than 12h": this one is among them (so are those of earlier runs of this spec on the same data).
    await page.goto(`/jobs?tenant=acme&type=export.tenant_data&sort=duration&longerThan=12h`);
    await expect(page.getByRole("table").getByRole("link", { name: shortId(h.id) })).toBeVisible();
    await expect(page.getByRole("table").getByRole("link", { name: shortId(quick.id) })).toHaveCount(0);
  });

  test("a short id opens its job, or lists the jobs that share it; the full id can be copied", async ({ page, submit, db }) => {
    const job = await submit({ tenantId: "acme", type: "report.generate", queue: HELD_QUEUE, params: { report: "daily_usage", period: "2026-11" } });
    await signInAs(page, "support", "/jobs");
    // Its short id (32 random bits) is its alone here: it opens the job.
    const [{ n } = { n: -1 }] = await execute<{ n: number }>(
      db,
      sql`SELECT count(*)::int AS n FROM jobs WHERE right(id::text, 8) = ${shortId(job.id)}`,
    );
    expect(n).toBe(1);
    await page.goto(`/jobs/${shortId(job.id)}`);
    await expect(page).toHaveURL(`/jobs/${job.id}`);
    // The start two ids share lists both. A UUIDv7 begins with its time: two made back to back share
    // their first nine digits (a 4 s window no other job falls in) unless a window ends between them.
    const REPORT = { tenantId: "acme", type: "report.generate", queue: HELD_QUEUE, params: { report: "daily_usage", period: "2026-11" } } as const;
    const startOf = (p: JobRow[]) => {
      const [a, b] = p.map((j) => j.id.replace(/-/g, ""));
      let n = 0;
      while (a![n] === b![n]) n++;
      return a!.slice(0, n);
    };
    let pair = [await submit(REPORT), await submit(REPORT)];
    for (let tries = 0; tries < 3 && startOf(pair).length < 9; tries++) pair = [pair[1]!, await submit(REPORT)];
    const shared = startOf(pair);
    expect(shared.length).toBeGreaterThanOrEqual(9);
    await page.goto(`/jobs/${shared}`);
    await expect(page).toHaveURL(`/jobs?q=${shared}`);
    for (const { id } of pair) await expect(page.getByRole("link", { name: shortId(id) })).toBeVisible();
    await page.goto(`/jobs/${job.id.slice(0, 23)}`);
    await expect(page).toHaveURL(`/jobs/${job.id}`);
    await expect(page.getByRole("button", { name: `Copy full id ${job.id}` }).first()).toBeVisible();
    // The list's lookup opens the only job that matches, too.
    await page.goto(`/jobs?q=${job.id.slice(0, 23)}`);
    await expect(page).toHaveURL(`/jobs/${job.id}`);
  });

  test("a tenant sees no tenant, worker or poison filter, nor the last worker", async ({ page }) => {
    await signInAs(page, "acme", "/jobs");
    // A filter in use (longest first) opens the filter form.
    await page.goto("/jobs?sort=duration");
    await expect(page.getByLabel("Took longer than")).toBeVisible();
    await expect(page.getByLabel("Tenant")).toHaveCount(0);
    await expect(page.getByLabel("Worker")).toHaveCount(0);
    await expect(page.getByText("Poison suspects only")).toHaveCount(0);
    await expect(page.getByRole("columnheader", { name: "Last worker" })).toHaveCount(0);
    await expect(page.getByRole("columnheader", { name: "Duration" })).toBeVisible();
  });
});

import { deadJobs, expect, test } from "./fixtures";

/** A replay runs on a worker; leave room for a loaded machine. */
const FINISH_MS = 20_000;
/** The list polls every 3 s (app/jobs/_components/jobs-view.tsx). */
const LIVE_MS = 15_000;
const SHOTS = process.env.E2E_SHOTS;

test.describe("after an action", () => {
  test("a bulk replay of dead jobs links to the jobs it touched, whose live outcome follows them; the audit log holds it once", async ({
    page,
    history,
  }) => {
    // Replay, a worker's run, three page loads and two live refreshes on a loaded 2-core machine.
    test.setTimeout(180_000);
    const { errorClass, ids, histories } = await deadJobs(history, 3);
    await page.goto("/dead");
    await page
      .getByRole("row", { name: `report.generate · ${errorClass}` })
      .getByRole("button", { name: `Replay group report.generate · ${errorClass}` })
      .click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: "Replay 3 jobs" }).click();
    await expect(dialog.getByText("Replay finished.")).toBeVisible({ timeout: FINISH_MS });

    // The result links to the jobs it touched.
    await dialog.getByRole("link", { name: "The 3 jobs it touched, and how they end →" }).click();
    await expect(page).toHaveURL(/\/jobs\?operation=[0-9a-f-]{36}$/);
    const operationId = new URL(page.url()).searchParams.get("operation")!;
    const summary = page.getByRole("region", { name: "Operation outcome" });
    await expect(summary.getByRole("heading", { name: `Bulk replay · dead · report.generate · ${errorClass}` })).toBeVisible();
    await expect(summary.getByLabel("applied: 3")).toBeVisible();
    await expect(summary.getByLabel("refused: 0")).toBeVisible();
    const now = summary.getByRole("list", { name: "Where they are now" });
    await expect(now.getByText("3 waiting (queued or retrying)")).toBeVisible();
    // Exactly the operation's jobs.
    const rows = page.getByRole("table").getByRole("link", { name: /^[0-9a-f]{8}$/ });
    await expect(rows).toHaveCount(3);
    expect((await rows.evaluateAll((els) => els.map((el) => el.getAttribute("href")))).sort()).toEqual(ids.map((id) => `/jobs/${id}`).sort());

    // The replayed jobs move on: one succeeds, one dies again, one still waits. The page follows live.
    // Claimed now: after the replay, not at the back-dated history's clock.
    const since = (h: (typeof histories)[number]) => Math.max(0, Date.now() - h.at);
    await (await histories[0]!.run("w-e2e-after", since(histories[0]!), 100)).step("finish", 200, undefined, { result: { ok: true } });
    await (
      await histories[1]!.run("w-e2e-after", since(histories[1]!), 100)
    ).step("abandon", 200, undefined, { error: { class: errorClass, message: "again" } });
    await expect(now.getByText("1 succeeded")).toBeVisible({ timeout: LIVE_MS });
    await expect(now.getByText("1 dead again")).toBeVisible({ timeout: LIVE_MS });
    await expect(now.getByText("1 waiting (queued or retrying)")).toBeVisible();
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/operation-list.png`, fullPage: true });
    // A state of the summary is the list's tab under the operation.
    await now.getByRole("link", { name: "1 dead again" }).click();
    await expect(page).toHaveURL(new RegExp(`operation=${operationId}`));
    await expect(page).toHaveURL(/state=dead/);
    await expect(page.getByRole("table").getByRole("link", { name: /^[0-9a-f]{8}$/ })).toHaveCount(1);

    // The audit log: one entry for the replay, its jobs one link away.
    await page.goto("/audit?action=bulk.replay");
    const entry = page.getByRole("link", { name: "3 jobs · outcomes →" }).first();
    await expect(entry).toHaveAttribute("href", `/jobs?operation=${operationId}`);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/audit-entry.png`, fullPage: false });
    await entry.click();
    await expect(page.getByRole("region", { name: "Operation outcome" }).getByLabel("applied: 3")).toBeVisible();
  });

  test("a params search that does not parse is named, not listed; a good one is kept in the URL", async ({ page, submit }) => {
    await page.goto("/jobs");
    await page.getByText("Filters", { exact: true }).click();
    const field = page.getByRole("textbox", { name: /^Params/ });
    await field.fill('{"period": ');
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Not valid JSON" })).toBeVisible();
    await expect(page).toHaveURL(/\/jobs$/);

    const period = `2026-${String(1 + Math.floor(Math.random() * 12)).padStart(2, "0")}-${String(1 + Math.floor(Math.random() * 28)).padStart(2, "0")}`;
    const job = await submit({ tenantId: "acme", type: "report.generate", queue: "e2e-held", params: { report: "audit_trail", period } });
    await field.fill(`params.period = "${period}" and report = audit_trail`);
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(/params=/);
    const rows = page.getByRole("table").getByRole("link", { name: /^[0-9a-f]{8}$/ });
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toHaveAttribute("href", `/jobs/${job.id}`);

    // A malformed one in the URL: the page says why, and the API answers 400.
    await page.goto("/jobs?params=customer_id");
    await expect(page.getByRole("alert").filter({ hasText: "has no “=”" })).toBeVisible();
    const api = await page.request.get("/api/jobs?params=customer_id");
    expect(api.status()).toBe(400);
  });
});

import type { Page } from "@playwright/test";
import { heartbeat } from "../lib/jobs/heartbeat";
import { transition } from "../lib/jobs/transition";
import { DEMO_USERS } from "../lib/demo/users";
import { SIGNED_OUT, signInAs } from "./auth";
import { eventually, expect, HELD_QUEUE, jobRow, SPEC_ACTOR, test } from "./fixtures";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

/** The operator the e2e specs are signed in as (e2e/auth.setup.ts). */
const DEV_OPERATOR = DEMO_USERS.operator.email;
const UNTRUSTED = `<img src=x onerror="window.__pwned=1"> timed out after 30000 ms`;

const stateOnPage = (page: Page, state: string) => page.getByRole("status", { name: `State: ${state}`, exact: true });
const SHOTS = process.env.E2E_SHOTS;
// Staff read "Run records" and attempts; a tenant reads "Tries".
const runRow = (page: Page, attempt: number) =>
  page.getByRole("region", { name: /^(Run records|Tries)$/ }).getByRole("row", { name: new RegExp(`^(Attempt|Try) ${attempt}\\b`) });

async function runOutcome(db: Parameters<typeof jobRow>[0], id: string, attempt: number) {
  const [run] = await execute<{ outcome: string | null }>(db, sql`SELECT outcome FROM job_runs WHERE job_id = ${id} AND attempt = ${attempt}`);
  return run?.outcome ?? null;
}

test.describe("job detail", () => {
  test("shows every attempt of a job: a lane each with its outcome, and each attempt's error", async ({ page, history }) => {
    const h = await history(10 * 60_000).submit(
      { tenantId: "acme", type: "upstream.call", queue: HELD_QUEUE, maxAttempts: 3, params: { endpoint: "https://partner.example/e2e" } },
      SPEC_ACTOR,
    );
    await h.run("w-e2e-1", 1_000);
    await h.loseLease(5_000, 30_000);
    await h.run("w-e2e-2", 500);
    await h.fail(3_000, { class: "UpstreamTimeout", message: UNTRUSTED }, 5_000);
    await h.run("w-e2e-3", 500);
    await h.step("finish", 2_000, undefined, { result: { status: 200, note: "<b>not bold</b>" } });

    await page.goto(`/jobs/${h.id}`);
    await expect(page.getByRole("heading", { level: 1, name: "upstream.call" })).toBeVisible();
    await expect(stateOnPage(page, "succeeded")).toBeVisible();
    await expect(page.getByText("3 of 3", { exact: true })).toBeVisible();

    const lanes = page.getByRole("list", { name: "Attempts" }).getByRole("listitem");
    await expect(lanes).toHaveCount(4);
    await expect(lanes.nth(0)).toHaveAccessibleName("Queued: before the first attempt");
    await expect(lanes.nth(1)).toHaveAccessibleName("Attempt 1, worker w-e2e-1: lease expired");
    await expect(lanes.nth(2)).toHaveAccessibleName("Attempt 2, worker w-e2e-2: failed");
    await expect(lanes.nth(3)).toHaveAccessibleName("Attempt 3, worker w-e2e-3: succeeded");

    await expect(runRow(page, 1)).toContainText("LeaseExpired");
    await expect(runRow(page, 1)).toContainText("no heartbeat for more than 30000 ms");
    await expect(runRow(page, 2)).toContainText("UpstreamTimeout");
    await expect(runRow(page, 3)).toContainText("succeeded");
    // Untrusted text is shown as text, never as markup.
    await expect(runRow(page, 2).getByText(UNTRUSTED)).toBeVisible();
    await expect(page.locator("img[src=x]")).toHaveCount(0);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    await expect(page.getByRole("group", { name: "Result" })).toContainText('"<b>not bold</b>"');
  });

  test("a failed attempt's stack is shown to staff (not to its tenant); a running job's progress is a bar, here and in the list", async ({
    page,
    db,
    history,
    browser,
  }) => {
    const queue = `${HELD_QUEUE}-progress-${Date.now()}`;
    const h = await history(60_000).submit(
      { tenantId: "acme", type: "export.tenant_data", queue, maxAttempts: 3, params: { dataset: "orders", rows: 10_000 } },
      SPEC_ACTOR,
    );
    await h.run("w-e2e-stack", 500);
    const stack = `    at postBatch (lib/ledger.ts:41:11)\n    at ${UNTRUSTED}`;
    await h.step("fail", 1_000, undefined, {
      error: { class: "LedgerError", message: "the ledger refused", stack },
      // An hour from now, not from the back-dated history: a due retry would be promoted by the supervisor before the operator's retry.
      retryAt: new Date(Date.now() + 3_600_000),
    });
    await h.step("retry", 2_000, { kind: "operator", id: DEV_OPERATOR });
    await h.run("w-e2e-stack", 500);
    // The handler reported 4,000 of 10,000 rows: its worker's heartbeat carries it.
    await heartbeat(db, { workerId: "w-e2e-stack", jobs: [{ id: h.id, attempt: 2, progress: { done: 4_000, total: 10_000 } }] });

    await page.goto(`/jobs/${h.id}`);
    await expect(page.getByRole("progressbar", { name: "Progress" })).toHaveAttribute("aria-valuetext", "40% · 4,000 of 10,000");
    await runRow(page, 1).getByText("Stack trace (2 frames)").click();
    await expect(runRow(page, 1).getByText("at postBatch (lib/ledger.ts:41:11)")).toBeVisible();
    await expect(page.locator("img[src=x]")).toHaveCount(0);
    await page.goto(`/jobs?queue=${queue}`);
    await expect(page.getByRole("table").getByRole("progressbar", { name: "Progress" })).toHaveAttribute("aria-valuetext", "40% · 4,000 of 10,000");

    // Its tenant reads the attempt's error, and no stack: the platform's code is not theirs to read.
    const tenant = await browser.newContext({ storageState: SIGNED_OUT });
    const tp = await tenant.newPage();
    await signInAs(tp, "acme", `/jobs/${h.id}`);
    await tp.goto(`/jobs/${h.id}`);
    // In the tenant's words: its run records are its tries.
    await expect(tp.getByRole("region", { name: "Tries" }).getByRole("row", { name: /^Try 1\b/ })).toContainText("the ledger refused");
    await expect(tp.getByText(/Stack trace/)).toHaveCount(0);
    await expect(tp.getByRole("progressbar", { name: "Progress" })).toBeVisible();
    const api = await tp.request.get(`/api/jobs/${h.id}`);
    expect(JSON.stringify(await api.json())).not.toContain("postBatch");
    await tenant.close();
  });

  test("cancels a running export: cancelling, then cancelled at the worker's checkpoint", async ({ page, db, submit }) => {
    test.setTimeout(150_000);
    const job = await submit({ tenantId: "acme", type: "export.tenant_data", params: { dataset: "orders", rows: 2_000_000, chunkRows: 10_000 } });
    await eventually(async () => (await jobRow(db, job.id)).state === "running", 90_000);

    await page.goto(`/jobs/${job.id}`);
    await expect(stateOnPage(page, "running")).toBeVisible();
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this job?" });
    await expect(dialog).toContainText("the worker stops at its next checkpoint");
    await dialog.getByRole("button", { name: "Yes, cancel" }).click();

    // One job: one guarded transition, answered in the same dialog.
    await expect(dialog.getByText(/^Applied: cancel → cancelling/)).toBeVisible();
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/job-cancel-result.png` });
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect(stateOnPage(page, "cancelled")).toBeVisible({ timeout: 30_000 });
    await expect(page.getByRole("group", { name: "Job actions" }).getByRole("button")).toHaveCount(0);

    const row = await jobRow(db, job.id);
    expect(row.state).toBe("cancelled");
    expect(await runOutcome(db, job.id, 1)).toBe("cancelled");
    const [cancel] = await execute<{ actorKind: string; actorId: string; fromState: string }>(
      db,
      sql`
      SELECT actor_kind, actor_id, from_state FROM job_events WHERE job_id = ${job.id} AND event = 'cancel'`,
    );
    expect(cancel).toEqual({ actorKind: "operator", actorId: DEV_OPERATOR, fromState: "running" });
    const [stop] = await execute<{ actorKind: string }>(db, sql`SELECT actor_kind FROM job_events WHERE job_id = ${job.id} AND event = 'stop'`);
    expect(stop?.actorKind).toBe("worker");
  });

  test("replays a dead job through the same dry run as /dead, with edited params: it runs with them and succeeds", async ({ page, db, submit }) => {
    test.setTimeout(120_000);
    // The partner answers 404 to this endpoint: a permanent error, the job is dead after its first attempt.
    const job = await submit({
      tenantId: "acme",
      type: "upstream.call",
      maxAttempts: 3,
      params: { endpoint: "https://partner.example/e2e?status=404", timeoutRate: 0 },
    });
    await eventually(async () => (await jobRow(db, job.id)).state === "dead", 60_000);

    await page.goto(`/jobs/${job.id}`);
    await expect(stateOnPage(page, "dead")).toBeVisible();
    await page.getByRole("button", { name: "Replay", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Replay this job" });
    await expect(dialog.getByText(/^Will replay 1, skip 0$/)).toBeVisible();
    await expect(dialog.getByText(/died of a permanent error/)).toBeVisible();
    await expect(dialog.getByText(/keeps them \(up to 2 more attempts\)/)).toBeVisible();

    await dialog.getByRole("button", { name: "Edit params before replaying…" }).click();
    const endpoint = dialog.getByLabel("endpoint");
    await endpoint.fill("not checked yet");
    await dialog.getByLabel("timeoutRate").fill("2");
    await dialog.getByRole("button", { name: "Check the edited params" }).click();
    // Checked like a new submission: the type's schema names the field.
    await expect(dialog.getByText(/expected number to be <=1/)).toBeVisible();
    await dialog.getByLabel("timeoutRate").fill("0");
    await endpoint.fill("https://partner.example/e2e");
    await dialog.getByRole("button", { name: "Check the edited params" }).click();
    await expect(dialog.getByRole("status", { name: "Params diff" })).toContainText("endpoint");
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/job-replay-edit.png` });
    await dialog.getByRole("button", { name: "Replay 1 job with edited params" }).click();
    await expect(dialog.getByText(/^Applied: replay → queued/)).toBeVisible();
    await dialog.getByRole("button", { name: "Close" }).click();

    await expect(stateOnPage(page, "succeeded")).toBeVisible({ timeout: 30_000 });
    await expect(page.getByRole("note").filter({ hasText: "Replayed with edited params" })).toContainText(DEV_OPERATOR);
    const replay = page.getByRole("region", { name: "Event log" }).getByRole("row").filter({ hasText: "replay" });
    await expect(replay).toContainText(DEV_OPERATOR);
    const row = await jobRow(db, job.id);
    expect({ state: row.state, attempt: row.attempt, params: row.params }).toEqual({
      state: "succeeded",
      attempt: 2,
      // The catalog keeps what was submitted.
      params: { endpoint: "https://partner.example/e2e?status=404", timeoutRate: 0, failFirstAttempts: 0 },
    });
    const [audit] = await execute<{ reason: string }>(
      db,
      sql`SELECT reason FROM audit_log WHERE action = 'job.replay' AND ${job.id}::uuid = ANY(job_ids)`,
    );
    expect(audit?.reason).toContain('endpoint "https://partner.example/e2e?status=404" → "https://partner.example/e2e"');
  });

  test("a stale page is refused: cancelling a job that has since succeeded names the worker and changes nothing", async ({ page, db, history }) => {
    const worker = "w-e2e-stale";
    const h = await history(5_000).submit(
      { tenantId: "acme", type: "report.generate", queue: HELD_QUEUE, params: { report: "daily_usage", period: "2026-11" } },
      SPEC_ACTOR,
    );
    await h.run(worker, 500);
    // Keep the lease alive, as the worker would, so the supervisor does not reclaim the job mid-test.
    const beatOnce = () => heartbeat(db, { workerId: worker, jobs: [{ id: h.id, attempt: 1 }] });
    await beatOnce();
    const beat = setInterval(() => void beatOnce(), 1_000);
    try {
      await page.goto(`/jobs/${h.id}`);
      await expect(stateOnPage(page, "running")).toBeVisible();
      await page.getByRole("button", { name: "Pause updates" }).click();
      await expect(page.getByText("Paused", { exact: true })).toBeVisible();

      const finished = await transition(db, {
        jobId: h.id,
        event: "finish",
        actor: { kind: "worker", id: worker },
        attempt: 1,
        result: { rows: 12 },
      });
      expect(finished.ok).toBe(true);
      const before = await jobRow(db, h.id);
      expect(before).toMatchObject({ state: "succeeded", stateVersion: 3 });
      // The page still shows what it showed before: running, with its Cancel button.
      await expect(stateOnPage(page, "running")).toBeVisible();

      await page.getByRole("button", { name: "Cancel", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Cancel this job?" });
      await dialog.getByRole("button", { name: "Yes, cancel" }).click();
      await expect(
        dialog.getByText(
          /^Refused: worker w-e2e-stale applied finish (at|on \d{4}-\d\d-\d\d at) \d\d:\d\d:\d\d UTC; the job is now succeeded \(version 3\)\. Nothing was changed\.$/,
        ),
      ).toBeVisible();
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/job-cancel-refused.png` });
      await dialog.getByRole("button", { name: "Close" }).click();

      const after = await jobRow(db, h.id);
      expect({ state: after.state, stateVersion: after.stateVersion, updatedAt: after.updatedAt }).toEqual({
        state: before.state,
        stateVersion: before.stateVersion,
        updatedAt: before.updatedAt,
      });
      const [cancels] = await execute<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM job_events WHERE job_id = ${h.id} AND event = 'cancel'`);
      expect(cancels?.n).toBe(0);
      expect(await runOutcome(db, h.id, 1)).toBe("succeeded");
      // The refusal is recorded and, once the page refreshes, listed with the job.
      const rejections = page.getByRole("region", { name: "Rejections" });
      await expect(rejections.getByRole("row").filter({ hasText: "conflict" })).toContainText(DEV_OPERATOR);
    } finally {
      clearInterval(beat);
    }
  });

  test("a malformed or unknown id is a 404, on the page and in the API", async ({ page, request }) => {
    const missing = "00000000-0000-4000-8000-000000000000";
    for (const id of ["not-a-uuid", missing]) {
      const res = await page.goto(`/jobs/${id}`);
      expect(res?.status()).toBe(404);
      await expect(page.getByRole("heading", { name: "No such job" })).toBeVisible();
      const api = await request.get(`/api/jobs/${id}`);
      expect(api.status()).toBe(404);
      expect(((await api.json()) as { error: { code: string } }).error.code).toBe("not_found");
    }
  });
});

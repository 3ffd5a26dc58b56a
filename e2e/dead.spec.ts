import type { Locator, Page } from "@playwright/test";
import { DEMO_USERS } from "../lib/demo/users";
import type { Db } from "../lib/db/client";
import { transition } from "../lib/jobs/transition";
import { deadJobs, expect, jobRow, OPERATOR, test } from "./fixtures";
import { shortId } from "../lib/jobs/short-id";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

const TYPE = "report.generate";
const SHOTS = process.env.E2E_SHOTS;
/** A replay of a group runs on a worker; leave room for a loaded machine. */
const FINISH_MS = 20_000;

const groupRow = (page: Page, errorClass: string) => page.getByRole("row", { name: `${TYPE} · ${errorClass}` });
const replayDialog = (page: Page) => page.getByRole("dialog");

/** The dry run's two numbers, once it has answered. */
async function dryRun(dialog: Locator): Promise<{ willReplay: number; skip: number }> {
  const line = dialog.getByText(/^Will replay \d+, skip \d+$/);
  await expect(line).toBeVisible();
  const [, a, b] = /Will replay (\d+), skip (\d+)/.exec((await line.textContent()) ?? "") ?? [];
  return { willReplay: Number(a), skip: Number(b) };
}

/** The dead-jobs page, with the button named `button` in the group of `errorClass` clicked. */
async function clickInGroup(page: Page, errorClass: string, button: string | RegExp) {
  await page.goto("/dead");
  await groupRow(page, errorClass).getByRole("button", { name: button }).click();
}

/** Confirm a replay of `n` jobs (more than one), and wait until it has finished, having applied `applied` of them. */
async function confirmReplay(dialog: Locator, n: number, applied = n) {
  await dialog.getByRole("button", { name: `Replay ${n} jobs` }).click();
  await expect(dialog.getByText("Replay finished.")).toBeVisible({ timeout: FINISH_MS });
  await expect(dialog.getByLabel(`applied: ${applied}`)).toBeVisible();
}

/** Confirm the replay of one job: one guarded transition, answered at once. */
async function confirmOne(dialog: Locator) {
  await dialog.getByRole("button", { name: "Replay 1 job" }).click();
  await expect(dialog.getByText(/^Applied: replay → queued/)).toBeVisible();
}

async function lastEvent(db: Db, id: string) {
  const [e] = await execute<{ event: string; actorKind: string; actorId: string; toState: string }>(
    db,
    sql`
    SELECT event, actor_kind, actor_id, to_state FROM job_events WHERE job_id = ${id} ORDER BY state_version DESC LIMIT 1`,
  );
  return e;
}

/** The operator the e2e specs are signed in as (e2e/auth.setup.ts). */
const SIGNED_IN_OPERATOR = { kind: "operator", id: DEMO_USERS.operator.email } as const;

test.describe("dead jobs", () => {
  test("a group shows its count, and expands to its jobs with their last error as text", async ({ page, history }) => {
    const { errorClass, ids } = await deadJobs(history, 3);
    await page.goto("/dead");
    await expect(page.getByRole("heading", { level: 1, name: "Dead jobs" })).toBeVisible();
    const row = groupRow(page, errorClass);
    await expect(row.locator("data")).toHaveText("3");
    // The message is shown as text, never as markup.
    await expect(row.getByText("e2e: attempt 3 failed <b>for good</b>")).toBeVisible();

    await row.getByRole("button", { name: `Show jobs of ${TYPE} · ${errorClass}` }).click();
    const jobs = page.getByRole("table", { name: `Jobs of ${TYPE} · ${errorClass}` });
    const boxes = jobs.getByRole("checkbox", { name: /^Select job / });
    await expect(boxes).toHaveCount(3);
    // Newest death first: the last job made died last.
    expect(await boxes.evaluateAll((els) => els.map((el) => el.getAttribute("aria-label")))).toEqual(
      [...ids].reverse().map((id) => `Select job ${id}`),
    );
    await expect(jobs.getByRole("link", { name: shortId(ids[0]!) })).toHaveAttribute("href", `/jobs/${ids[0]}`);
  });

  test("scopes the groups to a tenant and a time range from the URL", async ({ page, history }) => {
    const { errorClass } = await deadJobs(history, 2);
    await page.goto("/dead?tenant=globex");
    await expect(page.getByRole("textbox", { name: "Tenant" })).toHaveValue("globex");
    // The first view is rendered on the server, so the groups are already there.
    await expect(page.getByRole("heading", { level: 1, name: "Dead jobs" })).toBeVisible();
    await expect(groupRow(page, errorClass)).toHaveCount(0);

    await page.getByRole("textbox", { name: "Tenant" }).fill("acme");
    await page.getByRole("combobox", { name: "Died" }).selectOption("1h");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page).toHaveURL(/\/dead\?tenant=acme&window=1h$/);
    await expect(groupRow(page, errorClass).locator("data")).toHaveText("2");
  });

  test("replaying a group applies exactly what the dry run counted, as the signed-in operator", async ({ page, history, db }) => {
    const { errorClass, ids } = await deadJobs(history, 4);
    await clickInGroup(page, errorClass, `Replay group ${TYPE} · ${errorClass}`);
    const dialog = replayDialog(page);
    expect(await dryRun(dialog)).toEqual({ willReplay: 4, skip: 0 });

    await confirmReplay(dialog, 4);

    const operator = SIGNED_IN_OPERATOR;
    for (const id of ids) {
      expect((await jobRow(db, id)).state).toBe("queued");
      expect(await lastEvent(db, id)).toEqual({ event: "replay", actorKind: operator.kind, actorId: operator.id, toState: "queued" });
    }
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect(groupRow(page, errorClass)).toHaveCount(0);
  });

  test("replaying a group of one job is one guarded transition, not a durable operation", async ({ page, history, db }) => {
    const { errorClass, ids } = await deadJobs(history, 1);
    await clickInGroup(page, errorClass, `Replay group ${TYPE} · ${errorClass}`);
    const dialog = replayDialog(page);
    expect(await dryRun(dialog)).toEqual({ willReplay: 1, skip: 0 });
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/replay-dry-run.png` });
    await confirmOne(dialog);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/replay-one-result.png` });
    expect((await jobRow(db, ids[0]!)).state).toBe("queued");
    expect(await lastEvent(db, ids[0]!)).toEqual({ event: "replay", actorKind: "operator", actorId: SIGNED_IN_OPERATOR.id, toState: "queued" });
    expect(await execute(db, sql`SELECT 1 FROM bulk_operation_items WHERE job_id = ${ids[0]!}`)).toHaveLength(0);
    await dialog.getByRole("link", { name: "Open the job and follow it →" }).click();
    await expect(page).toHaveURL(`/jobs/${ids[0]}`);
  });

  test("a job that left dead after the dry run is refused as a conflict, not replayed", async ({ page, history, db }) => {
    const { errorClass, ids } = await deadJobs(history, 3);
    await clickInGroup(page, errorClass, /^Replay group /);
    const dialog = replayDialog(page);
    expect(await dryRun(dialog)).toEqual({ willReplay: 3, skip: 0 });

    // Someone else replays one of them between the dry run and the confirm.
    const moved = ids[1]!;
    const other = await transition(db, { jobId: moved, event: "replay", actor: OPERATOR });
    expect(other.ok).toBe(true);

    await confirmReplay(dialog, 3, 2);
    await expect(dialog.getByRole("list", { name: "Refused" })).toContainText("1 job refused — conflict");

    // Replayed once, by the other operator; the page's replay was refused and recorded.
    const replays = await execute<{ actorId: string }>(
      db,
      sql`
      SELECT actor_id FROM job_events WHERE job_id = ${moved} AND event = 'replay'`,
    );
    expect(replays.map((r) => r.actorId)).toEqual([OPERATOR.id]);
    const operator = SIGNED_IN_OPERATOR;
    const refusals = await execute<{ kind: string }>(
      db,
      sql`
      SELECT kind FROM transition_rejections WHERE job_id = ${moved} AND actor_id = ${operator.id}`,
    );
    expect(refusals.map((r) => r.kind)).toEqual(["conflict"]);
  });

  test("dead jobs added after the dry run are not swept into the replay", async ({ page, history, db }) => {
    const { errorClass, ids } = await deadJobs(history, 2);
    await clickInGroup(page, errorClass, /^Replay group /);
    const dialog = replayDialog(page);
    expect(await dryRun(dialog)).toEqual({ willReplay: 2, skip: 0 });

    // One dies between the dry run and the confirm, one right after the confirm.
    const [before] = (await deadJobs(history, 1, errorClass)).ids;
    await dialog.getByRole("button", { name: "Replay 2 jobs" }).click();
    const [after] = (await deadJobs(history, 1, errorClass)).ids;
    await expect(dialog.getByText("Replay finished.")).toBeVisible({ timeout: FINISH_MS });
    await expect(dialog.getByLabel("applied: 2")).toBeVisible();

    for (const id of ids) expect((await jobRow(db, id)).state).toBe("queued");
    for (const id of [before!, after!]) {
      expect((await jobRow(db, id)).state).toBe("dead");
      expect((await lastEvent(db, id))?.event).toBe("abandon");
    }
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect(groupRow(page, errorClass).locator("data")).toHaveText("2");
  });

  test("replays one job, or the checked ones, and leaves the rest dead", async ({ page, history, db }) => {
    const { errorClass, ids } = await deadJobs(history, 4);
    const [a, b, c, d] = ids as [string, string, string, string];
    await clickInGroup(page, errorClass, /^Show jobs of /);

    await page.getByRole("button", { name: `Replay job ${a}` }).click();
    const dialog = replayDialog(page);
    expect(await dryRun(dialog)).toEqual({ willReplay: 1, skip: 0 });
    await confirmOne(dialog);
    await dialog.getByRole("button", { name: "Close" }).click();

    await page.getByRole("checkbox", { name: `Select job ${b}` }).check();
    await page.getByRole("checkbox", { name: `Select job ${c}` }).check();
    await expect(page.getByText("2 selected", { exact: true })).toBeVisible();
    await page.getByRole("button", { name: "Replay selected" }).click();
    expect(await dryRun(dialog)).toEqual({ willReplay: 2, skip: 0 });
    await confirmReplay(dialog, 2);
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect(page.getByText("0 selected", { exact: true })).toBeVisible();

    expect((await Promise.all([a, b, c, d].map((id) => jobRow(db, id)))).map((j) => j.state)).toEqual(["queued", "queued", "queued", "dead"]);
  });

  test("the dry run skips jobs that are no longer dead", async ({ page, history, db }) => {
    const { errorClass, ids } = await deadJobs(history, 2);
    await clickInGroup(page, errorClass, /^Show jobs of /);
    for (const id of ids) await page.getByRole("checkbox", { name: `Select job ${id}` }).check();
    // Replayed elsewhere after the page showed it: still checked here.
    expect((await transition(db, { jobId: ids[0]!, event: "replay", actor: OPERATOR })).ok).toBe(true);
    await page.getByRole("button", { name: "Replay selected" }).click();
    const dialog = replayDialog(page);
    expect(await dryRun(dialog)).toEqual({ willReplay: 1, skip: 1 });
    await expect(dialog.getByRole("list", { name: "Skipped" })).toContainText("1 job: already queued");
    await dialog.getByRole("button", { name: "Go back" }).click();
    await expect(dialog).toBeHidden();
    expect((await jobRow(db, ids[1]!)).state).toBe("dead");
  });

  test("replay all dry-runs every dead job in the page's scope, and cancelling changes nothing", async ({ page, history, db }) => {
    const { ids } = await deadJobs(history, 2);
    await page.goto("/dead?tenant=acme&window=1h");
    await page.getByRole("button", { name: "Replay all" }).click();
    const dialog = replayDialog(page);
    await expect(dialog.getByRole("heading", { name: "Replay all dead jobs in this scope" })).toBeVisible();
    await expect(dialog.getByText("dead · every type and error · tenant acme · last 1h")).toBeVisible();
    const { willReplay, skip } = await dryRun(dialog);
    const [inScope] = await execute<{ n: number }>(
      db,
      sql`
      SELECT count(*)::int AS n FROM jobs WHERE state = 'dead' AND tenant_id = 'acme' AND finished_at >= now() - interval '1 hour'`,
    );
    // Nothing else dies on the held queue, and the demo's jobs have settled: the dry run saw what the database holds.
    expect(willReplay).toBeGreaterThanOrEqual(ids.length);
    expect(willReplay).toBe(inScope?.n);
    expect(skip).toBe(0);
    await dialog.getByRole("button", { name: "Go back" }).click();
    for (const id of ids) expect((await jobRow(db, id)).state).toBe("dead");
  });

  test("pauses its live refresh, says when nothing is dead, and shows a load error without details", async ({ page }) => {
    await page.goto("/dead");
    await expect(page.getByText(/^Updated \d+ s ago$/)).toBeVisible();
    await page.getByRole("button", { name: "Pause updates" }).click();
    await expect(page.getByText("Paused", { exact: true })).toBeVisible();
    await page.getByRole("button", { name: "Resume updates" }).click();

    let answer: "empty" | "error" = "empty";
    // The groups' poll (a group's jobs carry ?type=).
    await page.route(
      (url) => url.pathname === "/api/dead" && !url.searchParams.has("type"),
      (route) =>
        answer === "empty"
          ? route.fulfill({ json: { groups: [], capped: false, scanCap: 10_000, at: new Date().toISOString() } })
          : route.fulfill({
              status: 500,
              json: { error: { code: "internal", message: "Could not read the dead jobs: the database did not answer." } },
            }),
    );
    await expect(page.getByText("No dead jobs")).toBeVisible({ timeout: 15_000 });
    answer = "error";
    const alert = page.getByRole("alert").filter({ hasText: "Could not refresh the dead jobs" });
    await expect(alert).toBeVisible({ timeout: 15_000 });
    await expect(alert).toContainText("the database did not answer");
  });
});

import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { createApiKey } from "../lib/api/keys";
import { createUser } from "../lib/auth/users";
import { DEMO_USERS } from "../lib/demo/users";
import { SIGNED_OUT, signInAs, signOut } from "./auth";
import { expect as baseExpect, HELD_QUEUE, test } from "./fixtures";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

// The server may share its CPUs with builds and other suites: allow more than the default 5 s.
const expect = baseExpect.configure({ timeout: 15_000 });

const REPORT = { type: "report.generate", params: { report: "daily_usage", period: "2026-11" } } as const;
const MARKUP = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> Evil & Co`;
const run = randomBytes(3).toString("hex");

/** The job ids the jobs table links to, top to bottom. */
const linkedJobIds = (page: Page) =>
  page
    .getByRole("table")
    .locator('a[href^="/jobs/"]')
    .evaluateAll((links) => links.map((a) => a.getAttribute("href")!.replace("/jobs/", "")));

/** Sign in through the form with any account; `expectIn` waits for the signed-in header. */
async function signInWith(page: Page, email: string, password: string, expectIn = true) {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  const answered = page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/sign-in");
  await page.getByRole("button", { name: "Sign in" }).click();
  await answered;
  if (expectIn) await expect(page.getByTestId("signed-in-as")).toBeVisible();
}

test.use({ storageState: SIGNED_OUT });
// The operator's test reads what the admin's tests wrote to the audit log.
test.describe.configure({ mode: "serial" });

test.describe("admin", () => {
  test("an admin creates a tenant and a tenant user, who signs in and sees only that tenant's jobs", async ({ page, submit }) => {
    const tenantId = `e2e-${run}`;
    const email = `tess-${run}@initech.example`;
    const password = "initial-password-1";
    await signInAs(page, "admin", "/admin");
    await page.goto("/admin");
    await expect(page.getByRole("heading", { level: 1, name: "Admin" })).toBeVisible();

    const tenantForm = page.getByRole("form", { name: "Add a tenant" });
    await tenantForm.getByLabel("Tenant id").fill(tenantId);
    await tenantForm.getByLabel("Name").fill(`Initech ${run}`);
    await tenantForm.getByRole("button", { name: "Create tenant" }).click();
    await expect(tenantForm.getByRole("status")).toContainText(`Created tenant ${tenantId}`);
    await expect(page.getByTestId(`tenant-name-${tenantId}`)).toHaveText(`Initech ${run}`);

    const userForm = page.getByRole("form", { name: "Add a user" });
    await userForm.getByLabel("Email").fill(email);
    await userForm.getByLabel("Name").fill("Tess Tenant");
    await userForm.getByLabel("Initial password").fill(password);
    await userForm.getByLabel("Role").selectOption("tenant");
    await userForm.getByLabel("Tenant", { exact: true }).selectOption(tenantId);
    await userForm.getByRole("button", { name: "Create user" }).click();
    await expect(userForm.getByRole("status")).toContainText(`Created ${email}: Tenant member of ${tenantId}`);
    const row = page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: email });
    await expect(row).toContainText("Tenant member");
    await expect(row).toContainText(tenantId);

    // One job of the new tenant, one of another tenant.
    const mine = await submit({ tenantId, queue: HELD_QUEUE, ...REPORT });
    const theirs = await submit({ tenantId: "acme", queue: HELD_QUEUE, ...REPORT });

    await signOut(page);
    await page.waitForURL(/\/sign-in/);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("signed-in-as")).toContainText("Tess Tenant");
    await expect(page.getByTestId("signed-in-as")).toContainText(tenantId);
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" })).toHaveCount(0);

    await page.goto("/jobs");
    await expect.poll(() => linkedJobIds(page)).toEqual([mine.id]);
    // Another tenant's job does not exist for this user, and neither does the admin page.
    expect((await page.goto(`/jobs/${theirs.id}`))?.status()).toBe(404);
    expect((await page.goto("/admin"))?.status()).toBe(404);
  });

  test("a tenant name with markup is shown as text; bad input and the last admin's demotion are refused with a reason", async ({ page, db }) => {
    const pwned: string[] = [];
    page.on("dialog", (d) => {
      pwned.push(d.message());
      void d.dismiss();
    });
    await signInAs(page, "admin", "/admin");
    await page.goto("/admin");

    const tenantId = `evil-${run}`;
    const tenantForm = page.getByRole("form", { name: "Add a tenant" });
    await tenantForm.getByLabel("Tenant id").fill(tenantId);
    await tenantForm.getByLabel("Name").fill(MARKUP);
    await tenantForm.getByRole("button", { name: "Create tenant" }).click();
    await expect(tenantForm.getByRole("status")).toContainText(`Created tenant ${tenantId}`);
    const cell = page.getByTestId(`tenant-name-${tenantId}`);
    await expect(cell).toHaveText(MARKUP);
    await expect(cell.locator("img, script")).toHaveCount(0);
    // The name also appears inside the user form's tenant options: as text there too.
    await page.reload();
    await expect(page.getByTestId(`tenant-name-${tenantId}`)).toHaveText(MARKUP);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(pwned).toEqual([]);

    // A bad id: a clear message, and nothing written.
    const before = await execute(db, sql`SELECT count(*)::int AS n FROM tenants`);
    await tenantForm.getByLabel("Tenant id").fill("Not A Slug");
    await tenantForm.getByLabel("Name").fill("Whatever");
    await tenantForm.getByRole("button", { name: "Create tenant" }).click();
    await expect(tenantForm.getByRole("alert")).toContainText("Nothing was saved. Tenant id: use 1–40 lowercase letters");
    expect(await execute(db, sql`SELECT count(*)::int AS n FROM tenants`)).toEqual(before);

    // A taken id.
    await tenantForm.getByLabel("Tenant id").fill(tenantId);
    await tenantForm.getByRole("button", { name: "Create tenant" }).click();
    await expect(tenantForm.getByRole("alert")).toContainText(`A tenant with id "${tenantId}" already exists`);

    // The only admin cannot demote themself.
    const admin = DEMO_USERS.admin.email;
    await page.getByRole("button", { name: `Change role of ${admin}` }).click();
    const editor = page.getByRole("form", { name: `Role of ${admin}` });
    await editor.getByLabel("Role").selectOption("operator");
    await editor.getByRole("button", { name: "Save role" }).click();
    await expect(editor.getByRole("alert")).toContainText("This is the last admin");
    const [u] = await execute<{ role: string }>(db, sql`SELECT role FROM users WHERE email = ${admin}`);
    expect(u?.role).toBe("admin");
  });

  test("offboarding: a deactivated user's session stops at once and they cannot sign in; a suspended tenant's members and keys stop; a reset password works", async ({
    page,
    browser,
    db,
  }) => {
    // Two people in two browsers, a dozen round trips: more than the default 30 s on a shared machine.
    test.setTimeout(120_000);
    const tenantId = `off-${run}`;
    const email = `leaver-${run}@offboard.example`;
    const password = "leaver-password-1";
    await execute(db, sql`INSERT INTO tenants (id, name) VALUES (${tenantId}, 'Offboard Ltd')`);
    await createUser(db, { email, name: "Leaver", password, role: "tenant", tenantId, tenantOwner: true });
    const key = await createApiKey(db, { tenantId, name: "leaver's key" }, { userId: null, actor: email, role: "tenant", tenantId });
    // The leaver is signed in, in a browser of their own.
    const theirs = await browser.newContext({ storageState: SIGNED_OUT });
    const leaver = await theirs.newPage();
    await signInWith(leaver, email, password);

    await signInAs(page, "admin", "/admin");
    await page.getByRole("button", { name: `Access of ${email}` }).click();
    await page.getByRole("button", { name: `Deactivate ${email}` }).click();
    await expect(page.getByRole("status").filter({ hasText: `Deactivated ${email}` })).toContainText("1 session(s) ended, 1 API key(s)");
    // At once: their next request is signed out, their key is refused, and signing in is refused with a reason.
    await leaver.goto("/jobs");
    await expect(leaver).toHaveURL(/\/sign-in/);
    const api = await theirs.request.get("/api/v1/jobs", { headers: { Authorization: `Bearer ${key.secret}` } });
    expect(api.status()).toBe(401);
    await signInWith(leaver, email, password, false);
    await expect(leaver.getByRole("main").getByRole("alert")).toContainText("This account is deactivated");

    // Reactivated, with a new password; then the tenant is suspended and the member is stopped again.
    await page.getByRole("button", { name: `Reactivate ${email}` }).click();
    await expect(page.getByRole("status").filter({ hasText: `Reactivated ${email}` })).toBeVisible();
    await page
      .getByRole("form", { name: `New password for ${email}` })
      .getByLabel(/New password/)
      .fill("a-new-password-2");
    await page.getByRole("button", { name: "Set password" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Set a new password for ${email}` })).toBeVisible();
    await signInWith(leaver, email, "a-new-password-2");
    await page.getByRole("button", { name: `Rename or suspend tenant ${tenantId}` }).click();
    await page.getByRole("button", { name: `Suspend tenant ${tenantId}`, exact: true }).click();
    await expect(page.getByRole("status").filter({ hasText: `Suspended tenant ${tenantId}` })).toBeVisible();
    await leaver.goto("/jobs");
    await expect(leaver).toHaveURL(/\/sign-in/);
    await signInWith(leaver, email, "a-new-password-2", false);
    await expect(leaver.getByRole("main").getByRole("alert")).toContainText("suspended");
    await theirs.close();

    const audit = await execute<{ action: string; outcome: string }>(
      db,
      sql`
      SELECT action, outcome FROM audit_log WHERE actor = ${DEMO_USERS.admin.email} AND action LIKE 'admin.%' AND reason LIKE ${`%${email}%`} OR (action = 'admin.tenant.suspend' AND reason LIKE ${`%${tenantId}%`}) ORDER BY id`,
    );
    expect(audit.map((a) => a.action)).toEqual([
      "admin.user.deactivate",
      "admin.user.reactivate",
      "admin.user.password_reset",
      "admin.tenant.suspend",
    ]);
  });

  test("an operator gets no admin page, and reads the admin's actions in the audit log", async ({ page }) => {
    await signInAs(page, "operator", "/jobs");
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Audit" })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Admin" })).toHaveCount(0);
    expect((await page.goto("/admin"))?.status()).toBe(404);

    await page.goto("/audit");
    await expect(page.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
    const filter = page.getByRole("search", { name: "Filter the audit log" });
    await filter.getByLabel("User").fill(DEMO_USERS.admin.email);
    await filter.getByLabel("Action").selectOption("admin.tenant.create");
    await filter.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(/action=admin\.tenant\.create/);
    const log = page.getByRole("table", { name: "Audit log" });
    const rows = log.getByRole("row").filter({ hasText: DEMO_USERS.admin.email });
    // Newest first: the taken id (invalid), the bad id (invalid), the markup tenant, then the first tenant.
    await expect(rows).toHaveCount(4);
    await expect(rows.nth(0)).toContainText("invalid");
    await expect(rows.nth(0)).toContainText("already exists");
    await expect(rows.nth(2)).toContainText("applied");
    await expect(rows.nth(2)).toContainText(MARKUP);
    await expect(rows.nth(2).locator("img, script")).toHaveCount(0);
    await expect(rows.nth(3)).toContainText(`Created tenant e2e-${run}`);
    await page.goto("/audit");

    await filter.getByLabel("Action").selectOption("admin.user.role");
    await filter.getByLabel("Outcome").selectOption("refused");
    await filter.getByRole("button", { name: "Apply filters" }).click();
    await expect(log.getByRole("row").filter({ hasText: "last admin" })).toHaveCount(1);
  });
});

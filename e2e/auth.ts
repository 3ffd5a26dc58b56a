import { expect, type Page } from "@playwright/test";
import { DEMO_PASSWORD, DEMO_USERS, type DemoUser } from "../lib/demo/users";

/** Sign `page` in as one of the demo users (lib/demo/users.ts) through the sign-in form. */
export async function signInAs(page: Page, who: DemoUser, next = "/jobs"): Promise<void> {
  await page.goto(`/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Email").fill(DEMO_USERS[who].email);
  await page.getByLabel("Password").fill(DEMO_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("signed-in-as")).toContainText(DEMO_USERS[who].name);
}

/** Where the setup project keeps a signed-in browser state per demo user (see playwright.config.ts). */
export const storageStateFor = (who: DemoUser) => `${process.env.E2E_DATA ?? ".data/e2e"}.auth-${who}.json`;

/** A context with nobody signed in: for specs that sign in as someone else. */
export const SIGNED_OUT = { cookies: [], origins: [] };

/** Sign out through the account menu in the header. */
export async function signOut(page: Page): Promise<void> {
  await page.getByTestId("signed-in-as").click();
  await page.getByRole("button", { name: "Sign out" }).click();
}

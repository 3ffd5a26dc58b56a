import type { Page } from "@playwright/test";
import { DEMO_PASSWORD, DEMO_USERS, type DemoUser } from "../lib/demo/users";

/**
 * Sign `page` in as one of the demo users (lib/demo/users.ts) through the sign-in form.
 * PROVISIONAL until sign-in lands (issue 4): the console currently treats everyone as an admin.
 */
export async function signInAs(page: Page, who: DemoUser): Promise<void> {
  void page;
  void DEMO_USERS[who];
  void DEMO_PASSWORD;
}

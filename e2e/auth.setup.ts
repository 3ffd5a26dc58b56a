import { test as setup } from "@playwright/test";
import { signInAs, storageStateFor } from "./auth";

// Most specs act as the demo operator: sign in once, and reuse the session cookie.
setup("sign in as the demo operator", async ({ page }) => {
  await signInAs(page, "operator");
  await page.context().storageState({ path: storageStateFor("operator") });
});

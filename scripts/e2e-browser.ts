// Run before the end-to-end tests (npm run test:e2e): find a Chromium, or install one where this
// machine allows it, or stop with one instruction (lib/e2e/browser.ts).
import { chromium } from "@playwright/test";
import { ensureBrowser, machineProbe } from "../lib/e2e/browser";

const r = ensureBrowser(machineProbe(() => chromium.executablePath()));
if (!r.ok) {
  console.error(r.instruction);
  process.exit(1);
}
console.log(`[jobscope] end-to-end tests use ${r.browser.path}`);

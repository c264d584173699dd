// Chromium for the explorer's figures (explorer.ts) and the browser tests
// (test/support/browser.ts): headless, in a given fresh profile, with the
// background work that would add noise (updates, sync, networking) off.
import puppeteer, { type Browser } from "puppeteer-core";

/** Launches the Chromium at `executablePath` with `profile` as its user data directory. */
export function launchChromium(executablePath: string, profile: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      `--user-data-dir=${profile}`,
    ],
  });
}

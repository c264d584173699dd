/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// (The DOM's types: the browser tests hand functions to the page, page.evaluate.)
// A real browser for the browser tests: Debian's Chromium driven by
// puppeteer-core, headless, in a fresh profile; and the explorer page as the
// tests' global build made it (dist/web/). Where no Chromium is found, the
// browser tests say so in one line and skip.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { launchChromium } from "../../bench/chromium.js";
import { projectRoot } from "./built-commands.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "./temp-directory.js";

/** The Chromium to drive: CHROMIUM_PATH, else Debian's /usr/bin/chromium; undefined when neither exists. */
export const chromiumPath = [process.env.CHROMIUM_PATH, "/usr/bin/chromium"].find(
  (path): path is string => path !== undefined && path !== "" && existsSync(path),
);

/** True when the browser tests must skip; says why, once per file. */
export function skipWithoutChromium(file: string): boolean {
  if (chromiumPath !== undefined) return false;
  process.stdout.write(`${file}: skipped, no Chromium found (set CHROMIUM_PATH or install Debian's chromium)\n`);
  return true;
}

export interface TestBrowser {
  browser: Browser;
  /** A new page that records every script error and console error into `errors`. */
  newPage(): Promise<{ page: Page; errors: string[] }>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const profile = makeTemporaryDirectory("sqe-chromium-");
  const browser = await launchChromium(chromiumPath!, profile);
  return {
    browser,
    async newPage() {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(`pageerror: ${(error as Error).message ?? String(error)}`));
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(`console: ${message.text()}`);
      });
      page.on("dialog", (dialog) => {
        errors.push(`dialog: ${dialog.message()}`);
        void dialog.dismiss();
      });
      return { page, errors };
    },
    async close() {
      await browser.close();
      removeTemporaryDirectory(profile);
    },
  };
}

/** The explorer page's directory as the build made it once before the tests (dist/web/, build-once.ts). */
export const builtExplorerPage = join(projectRoot, "dist/web");

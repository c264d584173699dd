/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// (The DOM's types: the browser tests hand functions to the page, page.evaluate.)
// A real browser for the browser tests: Debian's Chromium driven by
// puppeteer-core, headless, in a fresh profile; and the explorer page built
// for it by the same build as dist/web/. Where no Chromium is found, the
// browser tests say so in one line and skip.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { launchChromium } from "../../bench/chromium.js";
import { buildExplorer } from "../../scripts/build/web-bundle.mjs";
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

/** Builds the explorer page into a new temporary directory; `remove` deletes it. */
export async function buildExplorerPage(): Promise<{ directory: string; remove(): void }> {
  const directory = makeTemporaryDirectory("sqe-explorer-");
  await buildExplorer(join(import.meta.dirname, "../.."), directory);
  return { directory, remove: () => removeTemporaryDirectory(directory) };
}

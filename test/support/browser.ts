import { eventually } from '@kpm/common';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';
import { repoRoot } from '@kpm/stack/paths';

export const CHROMIUM = '/usr/bin/chromium';

/** Flags for a quiet, offline, throw-away browser: nothing phones home, nothing is kept. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Debian's headless Chromium driven by playwright-core (no browser download), with a fresh
 * profile, recording every console error and failed request of its pages.
 */
export class TestBrowser {
  readonly errors: string[] = [];

  private constructor(
    readonly context: BrowserContext,
    private readonly profile: string,
  ) {}

  static async launch(): Promise<TestBrowser> {
    // Debian's package, installed on first use (scripts/debian-package.sh; a no-op when present).
    execFileSync(join(repoRoot(), 'scripts', 'debian-package.sh'), ['chromium', 'chromium'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const profile = mkdtempSync(join(tmpdir(), 'kpm-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1600, height: 1000 },
    });
    return new TestBrowser(context, profile);
  }

  async page(): Promise<Page> {
    const page = await this.context.newPage();
    page.on('console', (message: ConsoleMessage) => {
      if (message.type() === 'error') this.errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => this.errors.push(`page error: ${error.message}`));
    page.on('response', (response) => {
      if (response.status() >= 400) this.errors.push(`${response.status()} ${response.url()}`);
    });
    return page;
  }

  async close(): Promise<void> {
    await this.context.close();
    rmSync(this.profile, { recursive: true, force: true });
  }
}

/** How often `untilInPage` asks the page again. */
const POLL_MS = 25;

/**
 * Waits until `expression` (page code, as a string) is truthy in the page. It asks with
 * `page.evaluate`, which the DevTools protocol runs whatever the page's Content-Security-Policy:
 * playwright's `waitForFunction` compiles a string predicate inside the page (`new Function`),
 * which the dashboard's policy (no 'unsafe-eval') refuses.
 */
export async function untilInPage(
  page: Page,
  expression: string,
  timeoutMs = 60_000,
): Promise<void> {
  await eventually(async () => Boolean(await page.evaluate<unknown>(expression)), {
    what: `the page's ${expression}`,
    timeoutMs,
    everyMs: POLL_MS,
  });
}

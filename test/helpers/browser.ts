import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/**
 * Debian's Chromium (apt-get install chromium; .ci/run installs it) driven by playwright-core:
 * never a browser download. Headless, no sandbox (tests may run as root), no background
 * networking or component updates (nothing leaves the machine), a fresh profile per launch.
 */
export const CHROMIUM = '/usr/bin/chromium';

export const chromiumInstalled = () => existsSync(CHROMIUM);

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** `args`: more Chromium switches (test/inspector/browser-attacks.test.ts maps a name to 127.0.0.1 with --host-resolver-rules). */
export async function launchBrowser(opts: { viewport?: { width: number; height: number }; args?: string[] } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'lore-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-dev-shm-usage', ...(opts.args ?? [])],
    viewport: opts.viewport ?? { width: 1280, height: 900 },
    timezoneId: 'UTC',
    locale: 'en-US',
  });
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

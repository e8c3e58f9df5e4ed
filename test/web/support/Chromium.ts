import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { chromium, type Browser, type Page } from "playwright-core"

/**
 * Debian's Chromium driven by playwright-core (no browser download), headless, with a fresh profile per launch and
 * nothing phoning home. Where no Chromium is installed the browser tests skip, except under CI (.ci/run installs it).
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
export const haveChromium = existsSync(CHROMIUM)
if (!haveChromium && process.env.CI === "true") throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`)

export const launch = async (): Promise<{ browser: Browser; close: () => Promise<void> }> => {
  // playwright gives every launch a fresh temporary profile (--user-data-dir) and removes it on close.
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"
    ]
  })
  return {
    browser,
    close: async () => {
      await browser.close().catch(() => undefined)
    }
  }
}

export const RESULTS_DIR = join(process.cwd(), "test-results")

/** Runs a step; when it fails, every open page's screenshot is kept in test-results/ (gitignored) before rethrowing. */
export const withScreenshots = async <T>(name: string, pages: () => Array<Page>, body: () => Promise<T>): Promise<T> => {
  try {
    return await body()
  } catch (error) {
    mkdirSync(RESULTS_DIR, { recursive: true })
    let i = 0
    for (const page of pages()) {
      await page.screenshot({ path: join(RESULTS_DIR, `${name.replace(/\W+/g, "-")}-${i++}.png`), fullPage: true }).catch(() => undefined)
    }
    throw error
  }
}

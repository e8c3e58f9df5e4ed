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

const launchChromium = () =>
  // playwright gives every launch a fresh temporary profile (--user-data-dir) and removes it on close.
  chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"
    ]
  })

/** The worker's browser, launched by the first file that asks and shared by the files after it. */
let shared: Promise<Browser> | undefined

/**
 * The test worker's Chromium and a `close` for the calling file. Test files run one after another in one worker
 * (isolate: false in vitest.config.ts), and launching Chromium took 1.5-2 s of each browser file; so the browser is
 * shared, and what keeps files apart is the browser context, each with its own cookies, storage and pages (every test
 * opens its pages in contexts of its own). `close` closes the contexts opened since this `launch`, leaving the browser
 * to the next file; playwright ends it when the worker exits (and Chromium ends when its pipe to the worker closes). A
 * browser that crashed or was closed is launched again.
 */
export const launch = async (): Promise<{ browser: Browser; close: () => Promise<void> }> => {
  let browser = shared === undefined ? undefined : await shared.catch(() => undefined)
  if (browser === undefined || !browser.isConnected()) {
    shared = launchChromium()
    browser = await shared
  }
  const open = browser
  const before = new Set(open.contexts())
  return {
    browser: open,
    close: async () => {
      for (const context of open.contexts()) {
        if (!before.has(context)) await context.close().catch(() => undefined)
      }
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

import type { Browser, BrowserContext, Page } from "playwright-core"
import { client4 } from "../../support/Clients.ts"
import { startServer, type TestServer } from "../../support/TestServer.ts"
import { haveChromium, launch, withScreenshots } from "./Chromium.ts"
import { createPeople, signedInContext } from "./People.ts"

/**
 * The setup most browser tests share: a server, people (the first one is the system admin), one team they are all in
 * (created by the first; `members` to add only some), and a signed-in browser page for each of `browsers`, desktop sized, whose console errors
 * are printed. Without Chromium the pages are absent (the tests skip).
 */
export interface WebTeam {
  readonly server: TestServer
  readonly apis: Record<string, ReturnType<typeof client4>>
  readonly ids: Record<string, string>
  readonly teamId: string
  readonly teamName: string
  readonly browser: Browser | undefined
  readonly contexts: Record<string, BrowserContext>
  readonly pages: Record<string, Page>
  /** Runs a step; when it fails, every page's screenshot is kept in test-results/. */
  readonly step: (name: string, body: () => Promise<void>) => Promise<void>
  readonly close: () => Promise<void>
}

/**
 * Chromium with a signed-in, desktop-sized page for each person (in the order given), each page's console errors
 * printed; `close` ends the browser. For tests that set up their own server and data.
 */
export const signedInPages = async (url: string, people: ReadonlyArray<string>) => {
  const { browser, close } = await launch()
  const contexts: Array<BrowserContext> = []
  const pages: Array<Page> = []
  for (const name of people) {
    const context = await signedInContext(browser, url, name)
    const page = await context.newPage()
    page.on("console", (m) => m.type() === "error" && console.log(`browser console (${name}):`, m.text()))
    contexts.push(context)
    pages.push(page)
  }
  return { browser, contexts, pages, close }
}

export const startWebTeam = async (options: {
  readonly people: ReadonlyArray<string>
  readonly browsers: ReadonlyArray<string>
  readonly team?: { readonly name: string; readonly display_name: string }
  /** Who is added to the team besides its creator (default: everyone). */
  readonly members?: ReadonlyArray<string>
  readonly env?: Record<string, string>
}): Promise<WebTeam> => {
  const server = await startServer(options.env ? { env: options.env } : {})
  const { apis, ids } = await createPeople(server.url, options.people)
  const [first, ...others] = options.people
  const team = options.team ?? { name: "crew", display_name: "Crew" }
  const teamId = (await apis[first].createTeam({ ...team, type: "O" } as never)).id
  for (const name of options.members ?? others) await apis[first].addToTeam(teamId, ids[name])
  const contexts: Record<string, BrowserContext> = {}
  const pages: Record<string, Page> = {}
  let browser: Browser | undefined
  let closeBrowser = async () => {}
  if (haveChromium) {
    const opened = await signedInPages(server.url, options.browsers)
    ;({ browser, close: closeBrowser } = opened)
    options.browsers.forEach((name, i) => {
      contexts[name] = opened.contexts[i]
      pages[name] = opened.pages[i]
    })
  }

  return {
    server, apis, ids, teamId, teamName: team.name, browser, contexts, pages,
    step: (name, body) => withScreenshots(name, () => Object.values(pages), body),
    close: async () => {
      await closeBrowser()
      await server.close()
    }
  }
}

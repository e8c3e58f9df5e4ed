import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import type { Page } from "playwright-core"

/**
 * axe-core's serious and critical violations on a page, as readable lines (an empty list passes). axe is injected as
 * an inline script, which the client's CSP (rightly) forbids: the browser context must be made with `bypassCSP: true`.
 */
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

export const axeViolations = async (page: Page) => {
  await page.addScriptTag({ content: AXE })
  const results = await page.evaluate(async () => (window as any).axe.run(document, { resultTypes: ["violations"] }))
  return (results.violations as Array<any>)
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n: any) => `${n.target.join(" ")} ${n.html}`).slice(0, 3).join(", ")}`)
}

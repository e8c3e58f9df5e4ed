import { Chunk } from "effect"
import { writeFileSync } from "node:fs"
import { served } from "../Routes.ts"
import { render } from "./CompatDoc.ts"

/** Writes docs/compat.md from the router: `npm run compat-doc`. */
export const currentDoc = () => render(Chunk.toReadonlyArray(served.routes).map((r) => ({ method: r.method, path: r.path })))

export const DOC_PATH = new URL("../../docs/compat.md", import.meta.url)

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(DOC_PATH, currentDoc())
  console.log(`wrote ${DOC_PATH.pathname}`)
}

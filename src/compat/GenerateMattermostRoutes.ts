import { readFileSync, writeFileSync } from "node:fs"

/**
 * Extracts the (method, path template) pairs of Mattermost's API description into mattermost-routes.json, which is
 * committed because the description lives outside the repository:
 *   node --import tsx src/compat/GenerateMattermostRoutes.ts <path/to/mattermost-v4.yaml>
 * The description's indentation is irregular, so this reads structure, not a fixed indent: a path is a key one
 * level under `paths:`, a method a key one level under the path.
 */
const METHODS = new Set(["get", "post", "put", "delete", "patch", "head"])

export const extractRoutes = (yaml: string): Array<{ method: string; path: string }> => {
  const lines = yaml.split("\n")
  const start = lines.findIndex((l) => /^paths:\s*$/.test(l))
  if (start < 0) throw new Error("no paths section")
  const routes: Array<{ method: string; path: string }> = []
  const indentOf = (l: string) => l.length - l.trimStart().length
  let pathIndent = -1
  let current: { path: string; childIndent: number } | undefined
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue
    const indent = indentOf(line)
    if (indent === 0) break
    if (pathIndent < 0) pathIndent = indent
    const key = /^\s*["']?([^"':]+)["']?:\s*$/.exec(line)?.[1]
    if (indent === pathIndent) {
      current = key !== undefined && key.startsWith("/") ? { path: key, childIndent: -1 } : undefined
      continue
    }
    if (current === undefined || indent <= pathIndent) continue
    if (current.childIndent < 0) current.childIndent = indent
    if (indent === current.childIndent && key !== undefined && METHODS.has(key)) {
      routes.push({ method: key.toUpperCase(), path: current.path })
    }
  }
  return routes.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const source = process.argv[2] ?? "../shared/openapi/mattermost-v4.yaml"
  const routes = extractRoutes(readFileSync(source, "utf8"))
  const target = new URL("./mattermost-routes.json", import.meta.url)
  writeFileSync(target, `${JSON.stringify(routes, null, 0).replace(/\},\{/g, "},\n{")}\n`)
  console.log(`${routes.length} routes written to ${target.pathname}`)
}

import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"

/**
 * The house rules of docs/architecture.md, checked on the source tree itself:
 * - drivers and network adapters (PostgreSQL, Redis, OpenID, image codecs, WebSocket, HTTP clients, SMTP, S3) are
 *   imported only in layers/ and the composition root, so that every feature reaches them through a capability;
 * - src/ has no import cycle (type imports included: they tie the files' meaning together as much as values do);
 * - time in src/ comes from Clock, never `Date.now()`, so that TestClock drives it.
 */
const ROOT = resolve(import.meta.dirname, "../..")

/** Files that compose the program from its parts and may therefore name any module. */
// FastPath.ts is the listener's own dispatch of the hottest requests (it reads node:http's request and response types
// as Server.ts does), not a feature reaching past a capability.
const COMPOSITION_ROOT = new Set(["src/main.ts", "src/Server.ts", "src/Composition.ts", "src/http/FastPath.ts"])

const FORBIDDEN: ReadonlyArray<readonly [RegExp, string]> = [
  [/^pg(-.*)?$/, "PostgreSQL driver: use Db (layers/Db.ts)"],
  [/^@effect\/sql-pg$/, "PostgreSQL driver: use Db (layers/Db.ts)"],
  [/^ioredis$/, "Redis client: use Cache or PubSub (layers/)"],
  [/^openid-client$/, "OpenID client: use IdP (layers/IdP.ts)"],
  [/^sharp$/, "image codec: use Images (layers/Images.ts)"],
  [/^ws$/, "WebSocket server: use WebSockets (layers/WebSocket.ts)"],
  [/^(node:)?https?$|^(node:)?http2$/, "HTTP client or server internals: use OutboundHttp (layers/OutboundHttp.ts)"],
  [/^(undici|node-fetch|axios|got)$/, "HTTP client: use OutboundHttp (layers/OutboundHttp.ts)"],
  [/^nodemailer$/, "SMTP client: use Mailer (layers/Mailer.ts)"],
  [/^@aws-sdk\//, "S3 client: use FileStore (layers/FileStoreS3.ts)"]
]

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : []
  })

const OPERAND_KEYWORDS = new Set(["return", "typeof", "case", "yield", "await", "in", "of", "void", "delete", "throw", "else", "new", "do"])

/**
 * The text with comments removed and, with `strings`, the contents of string, template and regular-expression
 * literals blanked too (a template's `${…}` expressions are kept). Enough of JavaScript's grammar for this tree:
 * a `/` starts a regular expression where an operand is expected.
 */
const strip = (text: string, strings: boolean): string => {
  let out = ""
  let i = 0
  /** For each open template, the brace depth of the `${` that left it. */
  const templates: Array<number> = []
  let braces = 0
  let lastSignificant = ""
  const literal = (end: (c: string) => boolean, keepDelimiters = true) => {
    const start = i
    i++
    while (i < text.length && !end(text[i])) i += text[i] === "\\" ? 2 : 1
    if (i >= text.length) throw new Error(`unterminated literal at offset ${start}`)
    out += strings ? `${keepDelimiters ? text[start] : ""}${keepDelimiters ? text[i] : ""}` : text.slice(start, i + 1)
    i++
  }
  const templateBody = () => {
    // i is just after the opening backtick or the closing brace of an expression.
    while (i < text.length) {
      const c = text[i]
      if (c === "\\") {
        if (!strings) out += text.slice(i, i + 2)
        i += 2
      } else if (c === "`") {
        out += "`"
        i++
        return
      } else if (c === "$" && text[i + 1] === "{") {
        out += "${"
        i += 2
        templates.push(braces)
        braces++
        return
      } else {
        if (!strings) out += c
        i++
      }
    }
    throw new Error("unterminated template")
  }
  while (i < text.length) {
    const c = text[i]
    const next = text[i + 1]
    if (c === "/" && next === "/") {
      while (i < text.length && text[i] !== "\n") i++
    } else if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2)
      if (end < 0) throw new Error("unterminated comment")
      i = end + 2
      out += " "
    } else if (c === "\"" || c === "'") {
      literal((d) => d === c || d === "\n")
      lastSignificant = "a"
    } else if (c === "`") {
      out += "`"
      i++
      templateBody()
      lastSignificant = "a"
    } else if (c === "/" && (lastSignificant === "" || /[(,=:[!&|?{};+\-*%<>~^]/.test(lastSignificant))) {
      let inClass = false
      const start = i
      i++
      while (i < text.length && (text[i] !== "/" || inClass) && text[i] !== "\n") {
        if (text[i] === "\\") i++
        else if (text[i] === "[") inClass = true
        else if (text[i] === "]") inClass = false
        i++
      }
      if (text[i] !== "/") throw new Error(`unterminated regular expression at offset ${start}`)
      out += strings ? "/ /" : text.slice(start, i + 1)
      i++
      lastSignificant = "a"
    } else {
      if (c === "{") braces++
      if (c === "}") {
        braces--
        if (templates.length > 0 && templates[templates.length - 1] === braces) {
          templates.pop()
          out += "}"
          i++
          templateBody()
          lastSignificant = "a"
          continue
        }
      }
      if (/[\w$]/.test(c)) {
        const word = /^[\w$]+/.exec(text.slice(i, i + 64))![0]
        out += word
        i += word.length
        // After these keywords an operand is expected, so a `/` starts a regular expression.
        lastSignificant = OPERAND_KEYWORDS.has(word) ? "(" : "a"
        continue
      }
      out += c
      if (!/\s/.test(c)) lastSignificant = /[)\]]/.test(c) ? "a" : c
      i++
    }
  }
  return out
}

/** Module specifiers of static imports and exports, side-effect imports and dynamic imports. */
const specifiers = (code: string): Array<string> => {
  const found: Array<string> = []
  for (const m of code.matchAll(/\b(?:import|export)\s+(?:type\s+)?(?:[\w*${}\s,]+?\s+from\s+)?["']([^"']+)["']/g)) found.push(m[1])
  for (const m of code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) found.push(m[1])
  return found
}

const files = [...sourceFiles("src"), ...sourceFiles("layers"), ...sourceFiles("schemas")]
const code = new Map(files.map((f) => [f, strip(readFileSync(join(ROOT, f), "utf8"), false)]))

describe("architecture boundaries", () => {
  it("reads every source file (the literal scanner understands them all)", () => {
    expect(files.length).toBeGreaterThan(100)
    for (const file of files) expect(() => strip(readFileSync(join(ROOT, file), "utf8"), true), file).not.toThrow()
  })

  it("imports drivers and network adapters only in layers/ and the composition root", () => {
    const offenders: Array<string> = []
    for (const [file, text] of code) {
      if (file.startsWith("layers/") || COMPOSITION_ROOT.has(file)) continue
      for (const spec of specifiers(text)) {
        const rule = FORBIDDEN.find(([pattern]) => pattern.test(spec))
        if (rule !== undefined) offenders.push(`${file} imports "${spec}" (${rule[1]})`)
      }
    }
    expect(offenders).toEqual([])
  })

  it("makes no outbound fetch outside layers/ (a page's own script, inside a string, is not one)", () => {
    const offenders = files.filter((f) => f.startsWith("src/") && !COMPOSITION_ROOT.has(f))
      .filter((f) => /\bfetch\s*\(/.test(strip(readFileSync(join(ROOT, f), "utf8"), true)))
    expect(offenders).toEqual([])
  })

  it("reads the time through Clock in src/, never Date.now()", () => {
    const offenders = files.filter((f) => f.startsWith("src/"))
      .filter((f) => /\bDate\s*\.\s*now\s*\(/.test(strip(readFileSync(join(ROOT, f), "utf8"), true)))
    expect(offenders).toEqual([])
  })

  it("has no import cycle in src/ (type imports included)", () => {
    const graph = new Map<string, Array<string>>()
    for (const [file, text] of code) {
      if (!file.startsWith("src/")) continue
      const targets = specifiers(text)
        .filter((s) => s.startsWith("."))
        .map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)))
        .filter((t) => t.startsWith("src/") && code.has(t))
      graph.set(file, targets)
    }
    // Depth-first search: meeting a file still on the path closes a cycle.
    const cycles: Array<string> = []
    const state = new Map<string, "open" | "done">()
    const path: Array<string> = []
    const visit = (file: string) => {
      state.set(file, "open")
      path.push(file)
      for (const target of graph.get(file) ?? []) {
        const seen = state.get(target)
        if (seen === "open") cycles.push([...path.slice(path.indexOf(target)), target].join(" > "))
        else if (seen === undefined) visit(target)
      }
      path.pop()
      state.set(file, "done")
    }
    for (const file of graph.keys()) if (!state.has(file)) visit(file)
    expect(graph.size).toBeGreaterThan(100)
    expect(cycles).toEqual([])
  })

  it("the checks see what they look for", () => {
    const sample = [
      "import pg from \"pg\"",
      "import type { WebSocket } from 'ws'",
      "export { x } from \"sharp\"",
      "import {\n  a,\n  b\n} from \"node:http\"",
      "const m = await import(\"openid-client\")",
      "// import x from \"ioredis\"",
      "const page = `fetch(\"/api\")` + \"Date.now()\"",
      "const r = /[\"'`]/g; const now = Date.now()"
    ].join("\n")
    expect(specifiers(strip(sample, false))).toEqual(["pg", "ws", "sharp", "node:http", "openid-client"])
    const code = strip(sample, true)
    expect(code).not.toMatch(/fetch\s*\(/)
    expect(code.match(/Date\.now\(/g)?.length).toBe(1)
  })
})

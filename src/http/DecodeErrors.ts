import { Option, type ParseResult, SchemaAST as AST } from "effect"

/**
 * Decode failures in a person's words: which parameter, what was wrong and what it accepts ("channel_id: expected a
 * 26-character id, got \"abc\""), never the decoder's own notation. Effect's formatters describe schemas by their
 * internal structure ("(Struct (Encoded side) <-> …)") and quote the whole offending value, which for a hostile
 * request is megabytes; they also recurse once per level of nesting. This one caps every quote, keeps at most a few
 * problems, and walks the issue tree with an explicit stack.
 */
export const MAX_QUOTE = 100
const MAX_PROBLEMS = 5

export interface Problem {
  readonly path: ReadonlyArray<PropertyKey>
  readonly text: string
}

/** A value as a short quote: JSON for primitives, cut at MAX_QUOTE characters; objects and arrays by kind only. */
export const quote = (value: unknown): string => {
  if (value === undefined) return "nothing"
  if (value === null) return "null"
  if (Array.isArray(value)) return "an array"
  if (typeof value === "object") return "an object"
  const text = typeof value === "string" ? JSON.stringify(value.length > MAX_QUOTE ? value.slice(0, MAX_QUOTE) : value) : String(value)
  return typeof value === "string" && value.length > MAX_QUOTE ? `${text.slice(0, -1)}…" (${value.length} characters)` : text
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`)

/** What a schema accepts, in words. */
export const expected = (ast: AST.AST): string => {
  const description = AST.getDescriptionAnnotation(ast)
  if (Option.isSome(description) && description.value.length <= 120 && !description.value.includes("<->")) return description.value
  switch (ast._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return "a string"
    case "NumberKeyword":
      return "a number"
    case "BooleanKeyword":
      return "true or false"
    case "BigIntKeyword":
      return "an integer"
    case "Literal":
      return ast.literal === null ? "null" : JSON.stringify(ast.literal)
    case "Enums":
      return `one of ${ast.enums.map(([, v]) => JSON.stringify(v)).join(", ")}`
    case "TypeLiteral":
      return ast.indexSignatures.length > 0 && ast.propertySignatures.length === 0 ? "an object (a map)" : "an object"
    case "TupleType":
      return "an array"
    case "Union": {
      const parts = [...new Set(ast.types.map(expected))]
      return parts.length <= 6 ? `one of: ${parts.join(", ")}` : "a value of another kind"
    }
    case "Refinement":
      return expected(ast.from)
    case "Transformation":
      return expected(ast.from)
    case "Suspend":
      return "a value of another kind"
    case "UndefinedKeyword":
    case "VoidKeyword":
      return "nothing"
    default:
      return article("value of another kind")
  }
}

/** A message annotation (Schema's `message` option) for the issue, when the schema has one that is plain text. */
const annotated = (issue: ParseResult.ParseIssue): string | undefined => {
  if (!("ast" in issue)) return undefined
  const annotation = AST.getMessageAnnotation(issue.ast)
  if (Option.isNone(annotation)) return undefined
  try {
    const out = annotation.value(issue) as unknown
    if (typeof out === "string") return out
    if (typeof out === "object" && out !== null && "message" in out && typeof out.message === "string") return out.message
  } catch {
    // A message function that throws is no reason to fail the request: fall back to the generic words.
  }
  return undefined
}

const withActual = (text: string, actual: unknown) => (actual === undefined ? text : `${text}, got ${quote(actual)}`)

/** The problems of a decode failure, each with where it is (path of keys and indexes) and what is wrong. */
export const problems = (root: ParseResult.ParseIssue): ReadonlyArray<Problem> => {
  const out: Array<Problem> = []
  const stack: Array<{ issue: ParseResult.ParseIssue; path: ReadonlyArray<PropertyKey> }> = [{ issue: root, path: [] }]
  while (stack.length > 0 && out.length < MAX_PROBLEMS) {
    const { issue, path } = stack.pop()!
    const own = annotated(issue)
    if (own !== undefined && issue._tag !== "Pointer" && issue._tag !== "Composite") {
      out.push({ path, text: issue._tag === "Type" || issue._tag === "Refinement" ? withActual(own, issue.actual) : own })
      continue
    }
    switch (issue._tag) {
      case "Pointer": {
        const keys = Array.isArray(issue.path) ? issue.path : [issue.path]
        stack.push({ issue: issue.issue, path: [...path, ...keys] })
        break
      }
      case "Missing":
        out.push({ path, text: "is required" })
        break
      case "Unexpected":
        out.push({ path, text: "is not a known field" })
        break
      case "Forbidden":
        out.push({ path, text: "could not be checked" })
        break
      case "Type":
        out.push({ path, text: withActual(issue.message ?? `expected ${expected(issue.ast)}`, issue.actual) })
        break
      case "Refinement": {
        if (issue.kind === "From") {
          stack.push({ issue: issue.issue, path })
          break
        }
        const inner = issue.issue
        const own = inner._tag === "Type" ? inner.message : undefined
        out.push({ path, text: withActual(own ?? `expected ${expected(issue.ast)}`, issue.actual) })
        break
      }
      case "Transformation":
        stack.push({ issue: issue.issue, path })
        break
      case "Composite": {
        // A union that matched nothing says what it accepts rather than every member's complaint.
        if (issue.ast._tag === "Union") {
          out.push({ path, text: withActual(`expected ${expected(issue.ast)}`, issue.actual) })
          break
        }
        const inner = Array.isArray(issue.issues) ? issue.issues : [issue.issues as ParseResult.ParseIssue]
        for (let i = inner.length - 1; i >= 0; i--) stack.push({ issue: inner[i], path })
        break
      }
    }
  }
  return out
}

const pathText = (path: ReadonlyArray<PropertyKey>) =>
  path.map((key, i) => (typeof key === "number" ? `[${key}]` : `${i === 0 ? "" : "."}${String(key).slice(0, MAX_QUOTE)}`)).join("")

/** One line: "channel_id: expected a 26-character id, got \"abc\"; page: expected an integer, got \"x\"". */
export const summarize = (issue: ParseResult.ParseIssue, whole: string) =>
  problems(issue).map((p) => `${p.path.length === 0 ? whole : pathText(p.path)}: ${p.text}`).join("; ")

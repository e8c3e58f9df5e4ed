import { numberProblem } from "../../schemas/Params.ts"

/**
 * What PostgreSQL cannot store, refused at the decode boundary with a 400 before any query: a NUL character (text
 * and jsonb reject it), a lone UTF-16 surrogate (not UTF-8; jsonb rejects its escape), a number beyond the integers
 * JavaScript and bigint columns hold exactly, and JSON nested deeper than any client's payload (deep nesting also
 * costs stack in every later recursive step). Checked once per request value, iteratively.
 *
 * Also the backstop of the lists' limits: no array anywhere in a request value has more than MAX_LIST_ITEMS items.
 * Each route's Schema states its own, smaller limit (docs/architecture.md, "Bounded input"); this one holds for the
 * lists a Schema leaves open (props, attachments, anything nested), so that no request can turn into a statement
 * with more parameters than PostgreSQL's protocol carries or into work that grows without bound.
 */
export const MAX_DEPTH = 64
export const MAX_LIST_ITEMS = 10_000

const wellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed()

/** Why a string cannot be stored, if it cannot. */
export const stringProblem = (s: string): string | undefined => {
  if (s.includes("\u0000")) return "contains a NUL character, which cannot be stored"
  if (!wellFormed(s)) return "contains an unpaired UTF-16 surrogate (not valid Unicode)"
  return undefined
}

/** Numbers: declared with the query integers that use it (schemas/Params.ts). */
export { numberProblem }

export interface InputProblem {
  readonly path: ReadonlyArray<string | number>
  readonly text: string
}

/** The first problem in a parsed JSON value, with where it is. */
export const jsonProblem = (root: unknown): InputProblem | undefined => {
  const stack: Array<{ value: unknown; path: ReadonlyArray<string | number> }> = [{ value: root, path: [] }]
  while (stack.length > 0) {
    const { value, path } = stack.pop()!
    if (typeof value === "string") {
      const text = stringProblem(value)
      if (text !== undefined) return { path, text }
    } else if (typeof value === "number") {
      const text = numberProblem(value)
      if (text !== undefined) return { path, text }
    } else if (typeof value === "object" && value !== null) {
      if (path.length >= MAX_DEPTH) return { path: path.slice(0, 3), text: `is nested more than ${MAX_DEPTH} levels deep` }
      if (Array.isArray(value)) {
        if (value.length > MAX_LIST_ITEMS) return { path, text: `has ${value.length} items; at most ${MAX_LIST_ITEMS} are accepted` }
        for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: [...path, i] })
      } else {
        for (const key of Object.keys(value)) {
          const text = stringProblem(key)
          if (text !== undefined) return { path, text: `has a field name that ${text}` }
          stack.push({ value: (value as Record<string, unknown>)[key], path: [...path, key] })
        }
      }
    }
  }
  return undefined
}

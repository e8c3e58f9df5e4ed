/**
 * A small JSON Schema (2020-12 / OpenAPI 3.1) checker for the keywords Effect's JSONSchema generator writes, so that
 * tests can check real responses against a served OpenAPI document without a validator dependency. A keyword it does
 * not know is an error of its own, never silently accepted: a document using more must grow this checker first.
 */
type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type JsonSchema = boolean | { readonly [keyword: string]: any }

/** Keywords that describe and do not constrain. */
const ANNOTATIONS = new Set(["$id", "title", "description", "examples", "default", "format", "$comment", "deprecated", "readOnly", "writeOnly", "contentMediaType", "contentEncoding"])
const CHECKED = new Set([
  "$ref", "type", "enum", "const", "anyOf", "oneOf", "allOf", "properties", "required", "additionalProperties", "patternProperties",
  "propertyNames", "items", "prefixItems", "minItems", "maxItems", "minLength", "maxLength", "pattern", "minimum", "maximum",
  "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "$defs"
])

const typeOf = (value: unknown) =>
  value === null ? "null" : Array.isArray(value) ? "array" : typeof value === "number" && Number.isInteger(value) ? "integer" : typeof value

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/**
 * The problems of `value` against `schema` (none when it fits), each with its JSON path. `$ref`s are resolved in `root`
 * (e.g. the whole OpenAPI document for `#/components/schemas/...`).
 */
export const problems = (schema: JsonSchema, value: unknown, root: unknown, path = "$"): Array<string> => {
  if (schema === true) return []
  if (schema === false) return [`${path}: no value is allowed here`]
  const out: Array<string> = []
  for (const keyword of Object.keys(schema)) {
    if (!ANNOTATIONS.has(keyword) && !CHECKED.has(keyword)) out.push(`${path}: the checker does not know the keyword ${keyword}`)
  }
  if (schema.$ref !== undefined) {
    const ref = String(schema.$ref)
    if (!ref.startsWith("#/")) return [...out, `${path}: only local references are supported (${ref})`]
    const target = ref.slice(2).split("/").reduce<any>((node, part) => node?.[part.replace(/~1/g, "/").replace(/~0/g, "~")], root)
    if (target === undefined) return [...out, `${path}: ${ref} does not resolve`]
    out.push(...problems(target, value, root, path))
  }
  if (schema.type !== undefined) {
    const types: Array<string> = Array.isArray(schema.type) ? schema.type : [schema.type]
    const actual = typeOf(value)
    if (!types.some((t) => t === actual || (t === "number" && actual === "integer"))) {
      return [...out, `${path}: expected ${types.join(" or ")}, got ${actual} ${JSON.stringify(value)?.slice(0, 80)}`]
    }
  }
  if (schema.enum !== undefined && !schema.enum.some((v: unknown) => sameJson(v, value))) {
    out.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`)
  }
  if ("const" in schema && !sameJson(schema.const, value)) out.push(`${path}: expected ${JSON.stringify(schema.const)}`)
  if (schema.anyOf !== undefined && !schema.anyOf.some((s: JsonSchema) => problems(s, value, root, path).length === 0)) {
    out.push(`${path}: matches none of anyOf (${schema.anyOf.map((s: JsonSchema) => problems(s, value, root, path).join("; ")).join(" | ")})`)
  }
  if (schema.oneOf !== undefined && schema.oneOf.filter((s: JsonSchema) => problems(s, value, root, path).length === 0).length !== 1) {
    out.push(`${path}: does not match exactly one of oneOf`)
  }
  for (const s of schema.allOf ?? []) out.push(...problems(s, value, root, path))
  if (typeof value === "string") {
    if (schema.minLength !== undefined && value.length < schema.minLength) out.push(`${path}: shorter than ${schema.minLength}`)
    if (schema.maxLength !== undefined && value.length > schema.maxLength) out.push(`${path}: longer than ${schema.maxLength}`)
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) out.push(`${path}: does not match ${schema.pattern}`)
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) out.push(`${path}: below ${schema.minimum}`)
    if (schema.maximum !== undefined && value > schema.maximum) out.push(`${path}: above ${schema.maximum}`)
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) out.push(`${path}: not above ${schema.exclusiveMinimum}`)
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) out.push(`${path}: not below ${schema.exclusiveMaximum}`)
    if (schema.multipleOf !== undefined && value % schema.multipleOf !== 0) out.push(`${path}: not a multiple of ${schema.multipleOf}`)
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) out.push(`${path}: fewer than ${schema.minItems} items`)
    if (schema.maxItems !== undefined && value.length > schema.maxItems) out.push(`${path}: more than ${schema.maxItems} items`)
    const prefix: Array<JsonSchema> = schema.prefixItems ?? []
    value.forEach((item, i) => {
      const itemSchema = i < prefix.length ? prefix[i] : schema.items
      if (itemSchema !== undefined) out.push(...problems(itemSchema, item, root, `${path}[${i}]`))
    })
  }
  if (typeOf(value) === "object") {
    const record = value as Record<string, Json>
    for (const key of schema.required ?? []) {
      if (!Object.hasOwn(record, key)) out.push(`${path}: the required field ${key} is missing`)
    }
    for (const [key, item] of Object.entries(record)) {
      const at = `${path}.${key}`
      let covered = false
      if (schema.properties !== undefined && Object.hasOwn(schema.properties, key)) {
        covered = true
        out.push(...problems(schema.properties[key], item, root, at))
      }
      for (const [pattern, s] of Object.entries<JsonSchema>(schema.patternProperties ?? {})) {
        if (new RegExp(pattern, "u").test(key)) {
          covered = true
          out.push(...problems(s, item, root, at))
        }
      }
      if (schema.propertyNames !== undefined) out.push(...problems(schema.propertyNames, key, root, `${at} (name)`))
      if (!covered && schema.additionalProperties !== undefined) out.push(...problems(schema.additionalProperties, item, root, at))
    }
  }
  return out
}

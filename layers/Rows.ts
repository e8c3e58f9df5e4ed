import { Effect, Either, ParseResult, Schema, type SchemaAST } from "effect"

/**
 * Database rows decoded at the repo boundary. A repo names the shape of what a statement answers with a Schema
 * beside its SQL and pipes the statement through `rows(...)`:
 *
 *   const SessionRows = rows("Sessions", SessionRow)          // module level: the decoder is compiled once
 *   db.read(sql`SELECT * FROM sessions WHERE id = ${id}`.pipe(SessionRows))
 *
 * The database schema is ours, so a row that does not match is a bug, not bad input: the statement dies with a
 * RowMismatch naming the repo and the column (the edge answers 500 api.context.internal.app_error and logs the
 * cause). Columns the Schema does not name are kept as they came (`onExcessProperty: "preserve"`), so a `SELECT *`
 * row keeps what a caller reads beyond its declared shape, as before decoding.
 *
 * Cost: each row schema is compiled once into one plain function (below); rows are checked in place, copied only
 * when a column is converted (bigint text to number), no class per row. test/layers/Rows.test.ts prints the figure:
 * a 60-row users result (25 columns, 7 bigints) decoded in 75 µs on this 2-core machine under load from other
 * work (about 1.2 µs a row, the cost of the Number() conversions and the copy written by hand); Effect's own
 * parser with excess properties preserved took about 9 ms for the same rows.
 */
export class RowMismatch extends Error {
  override readonly name = "RowMismatch"
}

export interface RowsDecoder<A> {
  <E, R>(statement: Effect.Effect<ReadonlyArray<unknown>, E, R>): Effect.Effect<ReadonlyArray<A>, E, R>
  /** Decodes rows already read (a row mismatch throws RowMismatch). */
  readonly decode: (rows: ReadonlyArray<unknown>) => ReadonlyArray<A>
}

/** A statement's rows decoded with `row`; `name` says whose rows (repo and statement) in a mismatch. */
export const rows = <A, I>(name: string, row: Schema.Schema<A, I, never>): RowsDecoder<A> => {
  const parse = ParseResult.decodeUnknownEither(Schema.Array(row), { onExcessProperty: "preserve" })
  const fast = compile(row.ast)
  const mismatch = (input: ReadonlyArray<unknown>): ReadonlyArray<A> => {
    const result = parse(input)
    if (Either.isRight(result)) return result.right
    throw new RowMismatch(`rows of ${name} do not match their schema: ${ParseResult.TreeFormatter.formatIssueSync(result.left)}`)
  }
  // The compiled check answers undefined for a row it does not accept; the Schema's own parser then says why.
  const decode = (input: ReadonlyArray<unknown>): ReadonlyArray<A> => {
    if (fast === undefined) return mismatch(input)
    const out = new Array<A>(input.length)
    for (let i = 0; i < input.length; i++) {
      const decoded = fast(input[i])
      if (decoded === undefined) return mismatch(input)
      out[i] = decoded as A
    }
    return out
  }
  const decodeOrDie = (input: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<A>> => {
    try {
      return Effect.succeed(decode(input))
    } catch (defect) {
      return Effect.die(defect)
    }
  }
  // The piped effect remembers its statement and decoder (`decodedStatement`), so Db can still run the statement
  // on its direct pool path and decode the rows after, instead of handing an opaque effect to @effect/sql.
  const decoder = <E, R>(statement: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
    Object.assign(Effect.flatMap(statement, decodeOrDie), { [DecodedStatement]: { statement, decode: decodeOrDie } })
  return Object.assign(decoder, { decode })
}

/** Where a statement piped through `rows(...)` keeps the statement and its decoder (read by layers/Db.ts). */
export const DecodedStatement: unique symbol = Symbol.for("service/Rows/DecodedStatement")

export interface DecodedParts {
  readonly statement: Effect.Effect<ReadonlyArray<unknown>, unknown, unknown>
  readonly decode: (rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<unknown>>
}

/** The statement and decoder of an effect made by a `rows(...)` decoder, if it is one. */
export const decodedParts = (effect: unknown): DecodedParts | undefined =>
  (effect as { [DecodedStatement]?: DecodedParts })[DecodedStatement]

// ---------------------------------------------------------------------------------------------------------------
// The compiled decoder. Effect's parser walks the Schema's AST for every value and, with excess properties preserved,
// costs some 150 µs a row on this machine: too much for reads that run thousands of times a second. Row schemas
// are flat structs of a few column kinds, so each is compiled once into a plain loop over its columns; a Schema
// with anything else (refinements, literals, nested structs) is decoded by Effect's parser.

const enum Kind { String, Number, Boolean, Object, Array, Bytes, Unknown, Int8, Int8Text, Literals }

interface Column {
  readonly key: string
  readonly kind: Kind
  readonly nullable: boolean
  readonly absent: boolean
  /** For Kind.Literals: the values allowed. */
  readonly literals?: ReadonlyArray<string | number | boolean>
}

type AST = SchemaAST.AST

const kindOf = (ast: SchemaAST.AST): Kind | undefined => {
  if (ast === Int8.ast) return Kind.Int8
  if (ast === Int8Text.ast) return Kind.Int8Text
  switch (ast._tag) {
    case "StringKeyword":
      return Kind.String
    case "NumberKeyword":
      return Kind.Number
    case "BooleanKeyword":
      return Kind.Boolean
    case "UnknownKeyword":
      return Kind.Unknown
    case "Declaration":
      return ast === JsonObject.ast || ast === StringMap.ast
        ? Kind.Object
        : ast === StringList.ast
        ? Kind.Array
        : ast === Bytes.ast
        ? Kind.Bytes
        : undefined
    default:
      return undefined
  }
}

/** A column kind, or a kind or null (Schema.NullOr), or absent (Schema.optional). */
const columnOf = (key: string, ast: SchemaAST.AST, optional: boolean): Column | undefined => {
  let nullable = false
  let absent = optional
  const kinds: Array<AST> = []
  for (const member of ast._tag === "Union" ? ast.types : [ast]) {
    if (member._tag === "Literal" && member.literal === null) nullable = true
    else if (member._tag === "UndefinedKeyword") absent = true
    else kinds.push(member)
  }
  if (kinds.length > 0 && kinds.every((k) => k._tag === "Literal" && k.literal !== null && typeof k.literal !== "bigint")) {
    const literals = kinds.map((k) => (k as SchemaAST.Literal).literal as string | number | boolean)
    return { key, kind: Kind.Literals, nullable, absent, literals }
  }
  const kind = kinds.length === 1 ? kindOf(kinds[0]) : undefined
  return kind === undefined ? undefined : { key, kind, nullable, absent }
}

/** The test of column value `v` (an expression), for a column of this kind. */
const test = ({ kind, literals }: Column, v: string, n: string): string => {
  switch (kind) {
    case Kind.Literals:
      return `(${literals!.map((l) => `${v} === ${JSON.stringify(l)}`).join(" || ")})`
    case Kind.String:
      return `typeof ${v} === "string"`
    case Kind.Number:
      return `typeof ${v} === "number"`
    case Kind.Boolean:
      return `typeof ${v} === "boolean"`
    case Kind.Object:
      return `(typeof ${v} === "object" && ${v} !== null && !Array.isArray(${v}))`
    case Kind.Array:
      return `Array.isArray(${v})`
    case Kind.Bytes:
      return `${v} instanceof Uint8Array`
    case Kind.Unknown:
      return "true"
    case Kind.Int8:
      // `n` receives the number: the driver's text converted, or the number given.
      return `((${n} = typeof ${v} === "number" ? ${v} : typeof ${v} === "string" && ${v} !== "" ? Number(${v}) : NaN) === ${n})`
    case Kind.Int8Text:
      return `(typeof ${v} === "string" || (typeof ${v} === "number" && (${n} = String(${v}))))`
  }
}

/**
 * The row decoder as one generated function: reading a column by a key held in a variable is a megamorphic lookup
 * (some 100 ns each, 10 times the rest of the work), while a literal key in the source is compiled to a direct load.
 * The keys are the Schema's own property names (from our source, never from input), written as JSON strings.
 */
const compile = (ast: SchemaAST.AST): ((row: unknown) => unknown) | undefined => {
  if (ast._tag !== "TypeLiteral" || ast.indexSignatures.length > 0) return undefined
  const columns: Array<Column> = []
  for (const property of ast.propertySignatures) {
    if (typeof property.name !== "string") return undefined
    const compiled = columnOf(property.name, property.type, property.isOptional)
    if (compiled === undefined) return undefined
    columns.push(compiled)
  }
  const lines = [`if (typeof r !== "object" || r === null) return undefined`]
  const rewrites: Array<string> = []
  columns.forEach((column, i) => {
    const { absent, key, kind, nullable } = column
    const v = `v${i}`, n = `n${i}`
    lines.push(`const ${v} = r[${JSON.stringify(key)}]`)
    if (kind === Kind.Int8 || kind === Kind.Int8Text) lines.push(`let ${n}`)
    lines.push(`if (!(${test(column, v, n)}${nullable ? ` || ${v} === null` : ""}${absent ? ` || ${v} === undefined` : ""})) return undefined`)
    // The row is copied only once a value is converted: a bigint column the driver already gave as wanted (or NULL)
    // leaves the row as it came.
    const copy = "if (o === r) o = { ...r }; "
    if (kind === Kind.Int8) rewrites.push(`if (typeof ${v} === "string") { ${copy}o[${JSON.stringify(key)}] = ${n} }`)
    if (kind === Kind.Int8Text) rewrites.push(`if (typeof ${v} === "number") { ${copy}o[${JSON.stringify(key)}] = ${n} }`)
  })
  if (rewrites.length === 0) lines.push("return r")
  else lines.push("let o = r", ...rewrites, "return o")
  return new Function("r", lines.join("\n")) as (row: unknown) => unknown
}

// Columns as the driver returns them.

const isObject = (u: unknown): u is object => typeof u === "object" && u !== null && !Array.isArray(u)

/** A bigint column (PostgreSQL int8, count(*), sums): the driver answers text; a number is accepted as is. */
export const Int8 = Schema.transform(Schema.Union(Schema.String, Schema.Number), Schema.Number, {
  strict: true,
  decode: (value) => typeof value === "number" ? value : Number(value),
  encode: (value) => value
})

/**
 * A bigint column kept as the driver's text, for row types whose readers convert it themselves (the channel rows
 * read by the wire mapping); a number is turned into its text.
 */
export const Int8Text = Schema.transform(Schema.Union(Schema.String, Schema.Number), Schema.String, {
  strict: true,
  decode: (value) => typeof value === "string" ? value : String(value),
  encode: (value) => value
})

/** A jsonb object column: checked to be an object, its values left as stored (not walked, so cheap on big ones). */
export const JsonObject = Schema.declare((u): u is Record<string, unknown> => isObject(u), { identifier: "JsonObject" })
/** A jsonb column of string values by our writes (props, notify props, timezone); checked as an object only. */
export const StringMap = Schema.declare((u): u is Record<string, string> => isObject(u), { identifier: "StringMap" })

// Shapes many statements answer.

/** `SELECT count(*) AS count`. */
export const CountRow = Schema.Struct({ count: Int8 })
/** `RETURNING id`, `SELECT id`. */
export const IdRow = Schema.Struct({ id: Schema.String })
/** A text[] or jsonb array column of strings by our writes; checked as an array only. */
export const StringList = Schema.declare((u): u is ReadonlyArray<string> => Array.isArray(u), { identifier: "StringList" })
/** A jsonb object column of a shape our writes give it (`JsonObjectOf<Record<string, boolean>>()`); checked as an object only. */
export const JsonObjectOf = <A extends object>(): Schema.Schema<A, A> => JsonObject as unknown as Schema.Schema<A, A>
/** A bytea column (the driver answers a Buffer). */
export const Bytes = Schema.declare((u): u is Uint8Array => u instanceof Uint8Array, { identifier: "Bytes" })
/** A jsonb array column of a shape our writes give it; checked as an array only. */
export const JsonArrayOf = <A extends ReadonlyArray<unknown>>(): Schema.Schema<A, A> => StringList as unknown as Schema.Schema<A, A>

import pg from "pg"

const BACKGROUND = "/* background */"

/** A statement the in-process server sent, with its parameter values. */
export interface Captured {
  readonly text: string
  readonly values: ReadonlyArray<unknown>
}

/**
 * The statements (text and values) the in-process server sends while `run` runs: every statement goes through
 * pg.Client#query (the pool's client calls it with a config object), which is wrapped for that time only. Unlike
 * queriesDuring, the values are kept, so a test can EXPLAIN exactly what a route ran.
 */
export const statementsDuring = async <A>(run: () => Promise<A>): Promise<{ readonly value: A; readonly statements: Array<Captured> }> => {
  const statements: Array<Captured> = []
  const original = pg.Client.prototype.query
  // Statements marked as background work (the session invalidation log's poll) run on their own schedule, not for
  // the request being measured.
  const push = (captured: Captured) => {
    if (!captured.text.startsWith(BACKGROUND)) statements.push(captured)
  }
  pg.Client.prototype.query = function(this: pg.Client, ...args: Array<unknown>) {
    const [first, second] = args
    if (typeof first === "string") push({ text: first, values: Array.isArray(second) ? second : [] })
    else if (first !== null && typeof first === "object" && typeof (first as { text?: unknown }).text === "string") {
      const config = first as { text: string; values?: Array<unknown> }
      push({ text: config.text, values: config.values ?? (Array.isArray(second) ? second : []) })
    }
    return (original as (...a: Array<unknown>) => unknown).apply(this, args)
  } as typeof pg.Client.prototype.query
  try {
    return { value: await run(), statements }
  } finally {
    pg.Client.prototype.query = original
  }
}

/** A value as pg sends it in text form (arrays as array literals, as pg's own prepareValue writes them). */
const textOf = (value: unknown): string =>
  Array.isArray(value)
    ? `{${value.map((v) => v === null || v === undefined ? "NULL" : `"${textOf(v).replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`).join(",")}}`
    : value instanceof Date
    ? value.toISOString()
    : typeof value === "object" && value !== null && !Buffer.isBuffer(value)
    ? JSON.stringify(value)
    : Buffer.isBuffer(value)
    ? `\\x${value.toString("hex")}`
    : String(value)

/** A value as an untyped SQL literal (PREPARE infers each parameter's type; EXECUTE coerces the literal to it). */
export const literal = (value: unknown): string =>
  value === null || value === undefined ? "NULL" : `'${textOf(value).replaceAll("'", "''")}'`

export interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly "Shared Hit Blocks"?: number
  readonly "Shared Read Blocks"?: number
  readonly "Actual Rows"?: number
  readonly Plans?: ReadonlyArray<PlanNode>
}

/** Every node of a plan tree (init plans and sub plans are children in EXPLAIN's JSON too). */
export const planNodes = (node: PlanNode): Array<PlanNode> => [node, ...(node.Plans ?? []).flatMap(planNodes)]

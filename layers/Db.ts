import { SqlClient, type SqlConnection, Statement } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { Context, Data, Effect, FiberRef, Layer, Metric, Option, Redacted, Stream } from "effect"
import { Reactivity } from "@effect/experimental"
import pg from "pg"
import * as EmbeddedPostgres from "./EmbeddedPostgres.ts"
import { serviceClient } from "./ServiceClient.ts"
import { dbPoolSaturation } from "./Metrics.ts"
import { isConnectionFailure } from "./DbFailures.ts"
import { CircuitOpenError, makeCircuitBreaker, Policies } from "./Resilience.ts"
import { decodedParts } from "./Rows.ts"

/**
 * PostgreSQL. Features build statements with `sql` and run them through `execute` (writes) or `read` (retried on a
 * dropped connection), so every call has a timeout and passes the breaker; failures become DbError.
 */
export class DbError extends Data.TaggedError("DbError")<{ readonly cause: unknown }> {
  override get message() {
    return this.cause instanceof CircuitOpenError ? this.cause.message : `database error: ${describeCause(this.cause)}`
  }
}

/** SqlError says only "Failed to execute statement"; the driver's error beneath it says what went wrong. */
const describeCause = (cause: unknown): string => {
  if (!(cause instanceof Error)) return String(cause)
  const inner = (cause as { cause?: unknown }).cause
  return inner instanceof Error ? `${cause.message}: ${describeCause(inner)}` : cause.message
}

export interface DbService {
  readonly sql: SqlClient.SqlClient
  readonly execute: <A, R>(statement: Effect.Effect<A, SqlError, R>) => Effect.Effect<A, DbError, R>
  readonly read: <A, R>(statement: Effect.Effect<A, SqlError, R>) => Effect.Effect<A, DbError, R>
  /** Runs the effect in one transaction; statements inside use `sql` directly and roll back on any failure. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, Exclude<E, SqlError> | DbError, R>
  readonly ping: Effect.Effect<void, DbError>
  /** Connections in use over the pool's maximum, 0 to 1. */
  readonly saturation: Effect.Effect<number>
}

export class Db extends Context.Tag("service/Db")<Db, DbService>() {}

export interface PoolOptions {
  readonly url: Redacted.Redacted
  readonly maxConnections: number
  readonly minConnections: number
  /** Parameterised statements run as named prepared statements (serviceClient); on unless false. */
  readonly preparedStatements?: boolean
}

const STATEMENT_TIMEOUT_MS = 10_000

/**
 * Called just before a plain statement of the fiber is written to its connection, after the wait for one: PageCache
 * takes its ticket there, so a read that waited for a connection under load is not refused for changes announced
 * while it waited, which it sees (issue 31). Where a statement runs otherwise (a transaction, a transformer) it is
 * not called, and the caller keeps what it had before the statement, which is only more cautious.
 */
export const beforeSend = FiberRef.unsafeMake<(() => void) | undefined>(undefined)

const isSqlError = (e: unknown): e is SqlError => (e as { _tag?: string } | undefined)?._tag === "SqlError"


const makeService = (options: PoolOptions) =>
  Effect.gen(function*() {
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() =>
        new pg.Pool({
          connectionString: Redacted.value(options.url),
          max: options.maxConnections,
          min: options.minConnections,
          idleTimeoutMillis: 30_000,
          connectionTimeoutMillis: 10_000,
          // Timeouts in the driver rather than an Effect timeout around every statement (a fiber and a timer each):
          // the server cancels a statement past STATEMENT_TIMEOUT_MS, and the client gives up on an answer that does
          // not come (a server that stopped responding) a little later.
          statement_timeout: STATEMENT_TIMEOUT_MS,
          Client: serviceClient({ prepare: options.preparedStatements !== false, queryTimeoutMs: STATEMENT_TIMEOUT_MS + 5_000 })
        })
      ),
      (p) => Effect.promise(() => p.end())
    )
    // Idle clients that lose their server emit errors on the pool; queries surface them, so only swallow here.
    pool.on("error", () => {})
    const sql = yield* PgClient.fromPool({ acquire: Effect.succeed(pool), applicationName: "the-service" })
    // Only an unreachable PostgreSQL counts: a statement it refused is that request's failure alone (DbFailures.ts).
    const breaker = yield* makeCircuitBreaker({
      name: "postgres",
      maxFailures: 5,
      resetAfter: "5 seconds",
      isFailure: isConnectionFailure
    })
    /**
     * A statement run outside a transaction, straight on the pool: a checkout, the query, the release, in one
     * asynchronous step. @effect/sql's own execution wraps each statement in a span (with its text as an attribute),
     * a scope and the acquirer's steps, together a large part of the Effect runtime's share of a POST /posts in a
     * profile (issue 10); no tracer reads those spans here. Inside a transaction, with a statement transformer, or
     * for anything that is not a plain statement, @effect/sql runs it as before. The rows and errors are the
     * driver's, as PgClient passes them on (SqlError "Failed to execute statement"); an interrupted statement keeps
     * its connection until the server answers (bounded by statement_timeout) instead of being cancelled.
     */
    const direct = <A, R>(statement: Effect.Effect<A, SqlError, R>): Effect.Effect<A, SqlError, R> => {
      if (!Statement.isFragment(statement) || typeof (statement as { compile?: unknown }).compile !== "function") return statement
      if ((statement as { transformRows?: unknown }).transformRows !== undefined) return statement
      return Effect.withFiberRuntime((fiber) => {
        if (Option.isSome(Context.getOption(fiber.currentContext, SqlClient.TransactionConnection))) return statement
        if (Option.isSome(fiber.getFiberRef(Statement.currentTransformer))) return statement
        const [text, params] = (statement as unknown as Statement.Statement<A>).compile()
        const sending = fiber.getFiberRef(beforeSend)
        return Effect.async<A, SqlError>((resume) => {
          pool.connect((connectError, client, release) => {
            if (connectError !== undefined && connectError !== null || client === undefined) {
              return resume(Effect.fail(new SqlError({ cause: connectError ?? new Error("No client returned"), message: "Failed to acquire connection" })))
            }
            let failed: unknown = undefined
            const onError = (error: unknown) => {
              failed = error
            }
            client.once("error", onError)
            sending?.()
            client.query(text, params as Array<unknown>, (error, result) => {
              client.off("error", onError)
              // A connection that failed is destroyed rather than returned to the pool, as PgClient does.
              release(failed as Error | undefined)
              if (error) resume(Effect.fail(new SqlError({ cause: error, message: "Failed to execute statement" })))
              else resume(Effect.succeed((Array.isArray(result) ? result.map((r) => r.rows ?? []) : result.rows ?? []) as A))
            })
          })
        }) as Effect.Effect<A, SqlError, R>
      })
    }
    /** `direct`, also for a statement piped through a `rows(...)` decoder: the statement direct, then the decoder. */
    const directOrDecoded = <A, R>(statement: Effect.Effect<A, SqlError, R>): Effect.Effect<A, SqlError, R> => {
      const parts = decodedParts(statement)
      if (parts === undefined) return direct(statement)
      return Effect.flatMap(direct(parts.statement as Effect.Effect<ReadonlyArray<unknown>, SqlError, R>), parts.decode) as Effect.Effect<A, SqlError, R>
    }
    const guard = <A, R>(statement: Effect.Effect<A, SqlError, R>) =>
      breaker.protect(directOrDecoded(statement)).pipe(Effect.mapError((cause) => new DbError({ cause })))

    const saturation = Effect.sync(() =>
      options.maxConnections === 0 ? 0 : Math.min(1, (pool.totalCount - pool.idleCount) / options.maxConnections)
    ).pipe(Effect.tap((ratio) => Metric.set(dbPoolSaturation, ratio)))

    const service: DbService = {
      sql,
      execute: guard,
      // The retry is set up only once an attempt has failed on the connection: nearly every read succeeds first time.
      read: (statement) =>
        guard(statement).pipe(
          Effect.catchIf(
            (e) => isConnectionFailure(e.cause),
            () => Effect.retry(guard(statement), { schedule: Policies.idempotentStore, while: (e) => isConnectionFailure(e.cause) })
          )
        ),
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        breaker.protect(sql.withTransaction(effect)).pipe(
          Effect.mapError((e) => isSqlError(e) || e instanceof CircuitOpenError ? new DbError({ cause: e }) : e as Exclude<E, SqlError>)
        ),
      ping: guard(sql`SELECT 1`).pipe(Effect.asVoid),
      saturation
    }
    return { service, sql }
  })

/** A pool on the given URL; also provides SqlClient for the migrator. */
export const layerPool = (options: PoolOptions): Layer.Layer<Db | SqlClient.SqlClient, DbError> =>
  Layer.scopedContext(
    makeService(options).pipe(
      Effect.map(({ service, sql }) => Context.make(Db, service).pipe(Context.add(SqlClient.SqlClient, sql))),
      Effect.mapError((cause) => new DbError({ cause }))
    )
  ).pipe(Layer.provide(Reactivity.layer))

/** SERVICE_DATABASE_URL when set, otherwise an embedded PostgreSQL under the data directory. */
export const layer = (options: {
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  readonly maxConnections: number
  readonly minConnections: number
  readonly preparedStatements?: boolean
}): Layer.Layer<Db | SqlClient.SqlClient, DbError | EmbeddedPostgres.EmbeddedPostgresError> =>
  Option.match(options.databaseUrl, {
    onSome: (url) => layerPool({ ...options, url }),
    onNone: () =>
      Layer.unwrapScoped(
        Effect.map(EmbeddedPostgres.start(options.dataDir), (url) => layerPool({ ...options, url }))
      )
  })

// ---------------------------------------------------------------------------------------------------------------
// Stub: no database. Statements are compiled exactly as for PostgreSQL and answered by a function, so a service
// can be unit-tested on the rows it would read (and its writes checked in `statements`).

export interface StubStatement {
  /** The SQL text PostgreSQL would receive, with $1, $2… placeholders. */
  readonly sql: string
  readonly params: ReadonlyArray<unknown>
}

/** The rows a statement answers; throwing fails it as the database would (DbError). */
export type StubHandler = (statement: StubStatement) => ReadonlyArray<object>

export interface DbStub {
  readonly service: DbService
  readonly sql: SqlClient.SqlClient
  /** Every statement run, in order (a transaction's BEGIN and COMMIT or ROLLBACK included). */
  readonly statements: Array<StubStatement>
  readonly layer: Layer.Layer<Db | SqlClient.SqlClient>
}

export const makeStub = (handler: StubHandler): Effect.Effect<DbStub> =>
  Effect.gen(function*() {
    const statements: Array<StubStatement> = []
    const answer = (sqlText: string, params: ReadonlyArray<unknown>) =>
      Effect.try({
        try: () => {
          const statement = { sql: sqlText, params }
          statements.push(statement)
          return handler(statement) as ReadonlyArray<any>
        },
        catch: (cause) => new SqlError({ cause, message: "stub statement failed" })
      })
    const connection: SqlConnection.Connection = {
      execute: (sqlText, params) => answer(sqlText, params),
      executeRaw: (sqlText, params) => answer(sqlText, params),
      executeStream: (sqlText, params) => Stream.fromIterableEffect(answer(sqlText, params)),
      executeValues: (sqlText, params) => Effect.map(answer(sqlText, params), (rows) => rows.map((row) => Object.values(row))),
      executeUnprepared: (sqlText, params) => answer(sqlText, params)
    }
    const sql = yield* SqlClient.make({ acquirer: Effect.succeed(connection), compiler: PgClient.makeCompiler(), spanAttributes: [] }).pipe(
      Effect.provide(Reactivity.layer)
    )
    const toDbError = <A, R>(statement: Effect.Effect<A, SqlError, R>) => Effect.mapError(statement, (cause) => new DbError({ cause }))
    const service: DbService = {
      sql,
      execute: toDbError,
      read: toDbError,
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        sql.withTransaction(effect).pipe(Effect.mapError((e) => isSqlError(e) ? new DbError({ cause: e }) : e as Exclude<E, SqlError>)),
      ping: Effect.void,
      saturation: Effect.succeed(0)
    }
    return { service, sql, statements, layer: Layer.succeedContext(Context.make(Db, service).pipe(Context.add(SqlClient.SqlClient, sql))) }
  })

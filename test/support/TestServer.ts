import { HttpServer } from "@effect/platform"
import { ConfigProvider, Effect, Layer, Logger, LogLevel, ManagedRuntime, Option, Redacted } from "effect"
import * as CryptoLayer from "../../layers/Crypto.ts"
import { rawConfig, type ResolvedConfig } from "../../src/Config.ts"
import { type CapabilityOverrides, httpServer, makeServer } from "../../src/Server.ts"
import { tempDir } from "./Cleanup.ts"
import { createMigratedDatabase } from "./Databases.ts"

/**
 * The whole service in-process on a random loopback port, on its own fresh database, so tests drive it through HTTP
 * and WebSocket exactly as clients do. Capabilities default to in-memory cache and bus; pass SERVICE_CACHE_URL to use
 * Redis, or overrides to swap a layer.
 */
export interface TestServer {
  readonly url: string
  readonly port: number
  readonly databaseUrl: string
  readonly config: ResolvedConfig
  readonly runtime: ManagedRuntime.ManagedRuntime<any, any>
  readonly close: () => Promise<void>
}

export const testConfig = (env: Record<string, string> = {}): ResolvedConfig => {
  const provider = ConfigProvider.fromMap(new Map(Object.entries({
    SERVICE_LOG_LEVEL: "Error",
    SERVICE_SECURITY_RATE_LIMIT_AUTH_PER_MINUTE: "100000",
    SERVICE_SECURITY_RATE_LIMIT_WS_PER_MINUTE: "100000",
    SERVICE_SECURITY_RATE_LIMIT_CREATE_BURST: "100000",
    // Every test client is on loopback, one client for the cap; and a test server stops at once (no balancer to wait for).
    SERVICE_SECURITY_MAX_CONNECTIONS_PER_CLIENT: "100000",
    SERVICE_SHUTDOWN_DRAIN_MS: "0",
    ...env
  })))
  const raw = Effect.runSync(Effect.withConfigProvider(rawConfig, provider))
  return {
    ...raw,
    jwtSecretValue: Option.getOrElse(raw.jwtSecret, () => Redacted.make("k8Jd93hQm2Zx7Lw0PvN4tYr6Bs1Gc5Fe")),
    encryptionKeyValue: Option.getOrElse(raw.encryptionKey, () => Redacted.make("Qz3Wm8Xp1Lr6Tn0Vb5Hk2Jd9Fs4Gc7Ye"))
  }
}

export const startServer = async (options: {
  readonly env?: Record<string, string>
  readonly overrides?: CapabilityOverrides
  /** Reuse a database (a second node, or a restart). */
  readonly databaseUrl?: string
  /** Extra layers provided beside the server (e.g. an in-memory push transport). */
  readonly extra?: Layer.Layer<never, unknown, never>
} = {}): Promise<TestServer> => {
  const databaseUrl = options.databaseUrl ?? await createMigratedDatabase()
  const config = testConfig({
    SERVICE_DATABASE_URL: databaseUrl,
    SERVICE_DATA_DIR: tempDir("service-test-data-"),
    SERVICE_DB_POOL__MAX_CONNECTIONS: "5",
    SERVICE_DB_POOL__MIN_CONNECTIONS: "0",
    ...options.env
  })
  const layer = makeServer(config, {
    server: httpServer({ port: 0, host: "127.0.0.1" }),
    overrides: { crypto: CryptoLayer.layer(config.encryptionKeyValue, CryptoLayer.testHashCost), ...options.overrides }
  }).pipe(
    Layer.provide(Logger.minimumLogLevel(config.logLevel === LogLevel.Info ? LogLevel.Error : config.logLevel))
  )
  const runtime = ManagedRuntime.make(options.extra ? Layer.merge(layer, options.extra) : layer)
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (s) => s.address))
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    databaseUrl,
    config,
    runtime: runtime as ManagedRuntime.ManagedRuntime<any, any>,
    close: () => runtime.dispose()
  }
}

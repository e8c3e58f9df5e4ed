import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Layer, Option } from "effect"
import { createServer } from "node:http"
import * as CacheLayer from "../layers/Cache.ts"
import * as CryptoLayer from "../layers/Crypto.ts"
import * as DbLayer from "../layers/Db.ts"
import * as FileStoreLayer from "../layers/FileStore.ts"
import * as IdPLayer from "../layers/IdP.ts"
import * as Migrations from "../layers/Migrations.ts"
import * as PubSubLayer from "../layers/PubSub.ts"
import * as PushSenderLayer from "../layers/PushSender.ts"
import * as Access from "./access/Access.ts"
import * as Sessions from "./auth/Sessions.ts"
import { AppConfig, type ResolvedConfig } from "./Config.ts"
import * as CallRepo from "./calls/CallRepo.ts"
import * as DeviceRepo from "./devices/DeviceRepo.ts"
import * as DeviceSweep from "./devices/DeviceSweep.ts"
import * as EventBus from "./events/EventBus.ts"
import * as FileSettings from "./files/FileSettings.ts"
import { edge } from "./http/Edge.ts"
import * as PushNotifier from "./push/Notifier.ts"
import * as Push from "./push/Push.ts"
import * as PushSettings from "./push/PushSettings.ts"
import * as Realtime from "./realtime/Realtime.ts"
import { routes } from "./Routes.ts"
import * as SsoDirectory from "./sso/SsoDirectory.ts"
import * as StatusSweeper from "./status/Sweeper.ts"
import * as DiagnosticId from "./system/DiagnosticId.ts"
import * as SigningKey from "./system/SigningKey.ts"
import * as PostRepo from "./posts/PostRepo.ts"
import * as ThreadRepo from "./threads/ThreadRepo.ts"
import * as UserRepo from "./users/UserRepo.ts"
import * as UserDirectory from "./users/UserDirectory.ts"
import * as PreferenceRepo from "./preferences/PreferenceRepo.ts"

/**
 * Composition: capabilities chosen once from Config (or overridden by tests), feature services on top, the HTTP
 * program on top of those. Nothing here holds logic.
 */
export interface CapabilityOverrides {
  readonly cache?: Layer.Layer<CacheLayer.Cache, unknown>
  readonly pubsub?: Layer.Layer<PubSubLayer.PubSub, unknown>
  readonly crypto?: Layer.Layer<CryptoLayer.Crypto>
  readonly fileStore?: Layer.Layer<FileStoreLayer.FileStore, unknown>
  readonly pushSender?: Layer.Layer<PushSenderLayer.PushSender>
  readonly idp?: Layer.Layer<IdPLayer.IdP>
}

export const capabilities = (config: ResolvedConfig, overrides: CapabilityOverrides = {}) =>
  Layer.mergeAll(
    DbLayer.layer({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      maxConnections: config.dbPoolMax,
      minConnections: config.dbPoolMin
    }),
    overrides.cache ?? Option.match(config.cacheUrl, { onNone: () => CacheLayer.layerMemory, onSome: CacheLayer.layerRedis }),
    overrides.pubsub ?? Option.match(config.cacheUrl, { onNone: () => PubSubLayer.layerMemory, onSome: PubSubLayer.layerRedis }),
    overrides.crypto ?? CryptoLayer.layer(config.encryptionKeyValue),
    overrides.fileStore ?? FileStoreLayer.layer(config.dataDir),
    overrides.pushSender ?? PushSenderLayer.layer,
    overrides.idp ?? IdPLayer.layer(),
    Layer.succeed(AppConfig, config)
  )

/** Applies pending migrations before anything serves. */
const migrated = Layer.effectDiscard(Migrations.run)

/** Feature services; each feature adds its layer here. */
const services = Layer.mergeAll(
  Access.layer,
  Sessions.layer,
  UserRepo.layer,
  UserDirectory.layer,
  PreferenceRepo.layer,
  EventBus.layer,
  SigningKey.layer,
  DiagnosticId.layer,
  FileSettings.layer,
  DeviceRepo.layer,
  PushSettings.layer,
  Push.layer,
  CallRepo.layer,
  PostRepo.layer,
  ThreadRepo.layer,
  SsoDirectory.layer
)

/** Services built on the ones above (the realtime hub on the event bus); it also provides LiveStats. */
const dependentServices = Realtime.layer

/** Long-running per-node programs (the realtime hub, push workers): each feature adds its layer here. */
const background = Layer.mergeAll(PushNotifier.layer, DeviceSweep.layer, StatusSweeper.layer)

/**
 * A client resetting its connection while an upgrade is pending crashes Node on platform-node 0.108 (no error
 * listener on the socket; fixed only in Effect 4), so every upgrading socket gets one.
 */
const createGuardedServer = () => {
  const server = createServer()
  server.on("upgrade", (_request, socket) => socket.on("error", () => {}))
  return server
}

export const httpServer = (config: Pick<ResolvedConfig, "port" | "host">) =>
  NodeHttpServer.layer(createGuardedServer, { port: config.port, host: config.host })

/** The whole service. `server` defaults to a listener on SERVICE_HOST:SERVICE_PORT. */
export const makeServer = (
  config: ResolvedConfig,
  options: { readonly overrides?: CapabilityOverrides; readonly server?: Layer.Layer<HttpServer.HttpServer, unknown> } = {}
) => {
  const base = capabilities(config, options.overrides)
  const ready = dependentServices.pipe(Layer.provideMerge(services), Layer.provide(migrated), Layer.provideMerge(base))
  // The port opens only once everything is ready: Node accepts connections as soon as it listens, and a request that
  // arrives before the handler is attached is never answered.
  const listening = HttpServer.serve(edge(routes)).pipe(Layer.provideMerge(options.server ?? httpServer(config)))
  return Layer.mergeAll(listening, background).pipe(Layer.provideMerge(ready))
}

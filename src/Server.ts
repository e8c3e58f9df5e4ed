import * as SystemBot from "./bots/SystemBot.ts"
import * as ReminderJob from "./reminders/Reminders.ts"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { Duplex } from "node:stream"
import * as CacheLayer from "../layers/Cache.ts"
import * as CryptoLayer from "../layers/Crypto.ts"
import * as DbLayer from "../layers/Db.ts"
import * as FileStoreLayer from "../layers/FileStore.ts"
import * as IdPLayer from "../layers/IdP.ts"
import * as MailerLayer from "../layers/Mailer.ts"
import * as Migrations from "../layers/Migrations.ts"
import * as PubSubLayer from "../layers/PubSub.ts"
import * as OutboundHttpLayer from "../layers/OutboundHttp.ts"
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
import { SocketServer, type SocketServerService } from "./realtime/SocketServer.ts"
import { routes } from "./Routes.ts"
import * as SsoDirectory from "./sso/SsoDirectory.ts"
import * as StatusSweeper from "./status/Sweeper.ts"
import * as DiagnosticId from "./system/DiagnosticId.ts"
import * as SigningKey from "./system/SigningKey.ts"
import * as PostRepo from "./posts/PostRepo.ts"
import * as PostHistoryRepo from "./posts/PostHistoryRepo.ts"
import * as ThreadRepo from "./threads/ThreadRepo.ts"
import * as UserDirectory from "./users/UserDirectory.ts"
import * as UserRepo from "./users/UserRepo.ts"
import * as UserTokenRepo from "./recovery/UserTokenRepo.ts"
import * as InvitationRepo from "./invitations/InvitationRepo.ts"
import * as MfaRepo from "./mfa/MfaRepo.ts"
import * as DraftRepo from "./drafts/DraftRepo.ts"
import * as ScheduledPostRepo from "./scheduled/ScheduledPostRepo.ts"
import * as CountRepo from "./counts/CountRepo.ts"
import * as AllChannelsSearchRepo from "./channels/AllChannelsSearchRepo.ts"
import * as ScheduledPostJob from "./scheduled/ScheduledPostJob.ts"
import * as PreferenceRepo from "./preferences/PreferenceRepo.ts"
import * as WebApp from "./web/WebApp.ts"
import * as CommandFibers from "./commands/CommandFibers.ts"

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
  readonly outboundHttp?: Layer.Layer<OutboundHttpLayer.OutboundHttp>
  readonly mailer?: Layer.Layer<MailerLayer.Mailer>
}

/**
 * Files on S3-compatible storage when a bucket is configured (the AWS SDK is loaded only then), else under the data
 * directory.
 */
const fileStore = (config: ResolvedConfig) =>
  Option.match(config.filesS3, {
    onNone: () => FileStoreLayer.layer(config.dataDir),
    onSome: (s3) => Layer.unwrapEffect(Effect.map(Effect.promise(() => import("../layers/FileStoreS3.ts")), (S3) => S3.layer(s3)))
  })

/** SMTP settings when SERVICE_SMTP_URL is set (the from address is then required by the config checks). */
export const smtpSettings = (config: ResolvedConfig): Option.Option<MailerLayer.SmtpSettings> =>
  Option.map(config.smtpUrl, (url) => ({
    url,
    username: config.smtpUsername,
    password: config.smtpPassword,
    from: Option.getOrElse(config.emailFrom, () => `noreply@${new URL(config.siteUrl).hostname}`)
  }))

export const capabilities = (config: ResolvedConfig, overrides: CapabilityOverrides = {}) =>
  Layer.mergeAll(
    DbLayer.layer({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      maxConnections: config.dbPoolMax,
      minConnections: config.dbPoolMin,
      preparedStatements: config.dbPreparedStatements
    }),
    overrides.cache ?? Option.match(config.cacheUrl, { onNone: () => CacheLayer.layerMemory, onSome: CacheLayer.layerRedis }),
    overrides.pubsub ?? Option.match(config.cacheUrl, { onNone: () => PubSubLayer.layerMemory, onSome: PubSubLayer.layerRedis }),
    overrides.crypto ?? CryptoLayer.layer(config.encryptionKeyValue),
    overrides.fileStore ?? fileStore(config),
    overrides.pushSender ?? PushSenderLayer.layer,
    overrides.outboundHttp ?? OutboundHttpLayer.layer(config.allowInternalConnections),
    // Outside production a developer may try SSO against a provider on plain http (a local Keycloak); the admin
    // answer and the log warn about every such URL. Production speaks https only.
    overrides.idp ?? IdPLayer.layer({ allowInsecureRequests: !config.isProduction }),
    overrides.mailer ?? MailerLayer.layer(smtpSettings(config)),
    Layer.succeed(AppConfig, config)
  )

/** Applies pending migrations before anything serves. */
const migrated = Layer.effectDiscard(Migrations.run)

/** Feature services; each feature adds its layer here. */
const services = Layer.mergeAll(
  Access.layer,
  Sessions.layer,
  UserRepo.layer,
  UserTokenRepo.layer,
  InvitationRepo.layer,
  MfaRepo.layer.pipe(Layer.provide(UserRepo.layer)),
  DraftRepo.layer,
  ScheduledPostRepo.layer,
  CountRepo.layer,
  AllChannelsSearchRepo.layer,
  UserDirectory.layer,
  PreferenceRepo.layer,
  SigningKey.layer,
  DiagnosticId.layer,
  FileSettings.layer,
  DeviceRepo.layer,
  PushSettings.layer,
  Push.layer,
  CallRepo.layer,
  PostRepo.layer,
  PostHistoryRepo.layer,
  ThreadRepo.layer,
  SsoDirectory.layer,
  WebApp.layer,
  SystemBot.layer.pipe(Layer.provide(UserRepo.layer)), // the same UserRepo (layers are shared by reference)
  CommandFibers.layer
).pipe(Layer.provideMerge(EventBus.layer)) // Sessions announce ended sessions on it

/** Services built on the ones above (the realtime hub on the event bus); it also provides LiveStats. */
const dependentServices = Realtime.layer

/** Long-running per-node programs (the realtime hub, push workers): each feature adds its layer here. */
const background = Layer.mergeAll(PushNotifier.layer, DeviceSweep.layer, StatusSweeper.layer, ReminderJob.layer, ScheduledPostJob.layer)

/** After `close`, requests still running this long are cut: a hung keep-alive request cannot hold a shutdown. */
export const REQUEST_GRACE_MS = 10_000

/**
 * platform-node registers its own 'upgrade' listener, which runs the Effect app and keeps a fiber per open socket
 * (about 50 KB each); another listener cannot stop it, so both would take the socket (Effect-TS/effect#5066). The
 * server therefore decides where each 'upgrade' goes as it is emitted: the realtime socket paths to the SocketServer,
 * everything else to the listeners as usual. Wrapping this one server's `emit` decides before any listener runs and
 * needs no global state (a module-level registry could not tell two servers in one process apart).
 * A client resetting its connection while an upgrade is pending crashes Node on platform-node 0.108 (no error
 * listener on the socket; fixed only in Effect 4), so every upgrading socket gets one.
 */
const createGuardedServer = (sockets: SocketServerService) => {
  const server = createServer()
  // Node's close stops listening and closes idle keep-alive connections, then waits for the busy ones to finish.
  const close = server.close
  server.close = function(this: Server, callback?: (err?: Error) => void) {
    setTimeout(() => server.closeAllConnections(), REQUEST_GRACE_MS).unref()
    return Reflect.apply(close, this, [callback]) as Server
  } as Server["close"]
  const emit = server.emit
  server.emit = function(this: Server, event: string | symbol, ...args: Array<unknown>) {
    if (event === "upgrade") {
      const [request, socket, head] = args as [IncomingMessage, Duplex, Buffer]
      socket.on("error", () => {})
      if (sockets.upgrade(request, socket, head)) return true
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean
  } as Server["emit"]
  return server
}

/**
 * The listener, with the socket server's shutdown in a layer on top of it, hence released before it: open sockets
 * close (1001) before `server.close` waits for every connection to end.
 */
export const httpServer = (config: Pick<ResolvedConfig, "port" | "host">) =>
  Layer.unwrapEffect(Effect.map(SocketServer, (sockets) =>
    Layer.scopedDiscard(Effect.addFinalizer(() => sockets.shutdown)).pipe(
      Layer.provideMerge(NodeHttpServer.layer(() => createGuardedServer(sockets), { port: config.port, host: config.host }))
    )))

/** The whole service. `server` defaults to a listener on SERVICE_HOST:SERVICE_PORT. */
export const makeServer = (
  config: ResolvedConfig,
  options: { readonly overrides?: CapabilityOverrides; readonly server?: Layer.Layer<HttpServer.HttpServer, unknown, SocketServer> } = {}
) => {
  const base = capabilities(config, options.overrides)
  const ready = dependentServices.pipe(Layer.provideMerge(services), Layer.provide(migrated), Layer.provideMerge(base))
  // The port opens only once everything is ready: Node accepts connections as soon as it listens, and a request that
  // arrives before the handler is attached is never answered.
  const listening = HttpServer.serve(edge(routes)).pipe(Layer.provideMerge(options.server ?? httpServer(config)))
  // No tracer is exported anywhere, so spans (one per request from the platform, one per SQL statement) would be
  // built and thrown away: turned off, they cost nothing.
  return Layer.mergeAll(listening, background).pipe(Layer.provideMerge(ready), Layer.provide(Layer.setTracerEnabled(false)))
}

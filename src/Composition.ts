import { Effect, Layer, Option } from "effect"
import * as CacheLayer from "../layers/Cache.ts"
import * as CryptoLayer from "../layers/Crypto.ts"
import * as DbLayer from "../layers/Db.ts"
import * as FileStoreLayer from "../layers/FileStore.ts"
import * as IdPLayer from "../layers/IdP.ts"
import * as ImagesLayer from "../layers/Images.ts"
import * as MailerLayer from "../layers/Mailer.ts"
import * as Migrations from "../layers/Migrations.ts"
import * as OutboundHttpLayer from "../layers/OutboundHttp.ts"
import * as PubSubLayer from "../layers/PubSub.ts"
import * as PushSenderLayer from "../layers/PushSender.ts"
import * as WebSocketLayer from "../layers/WebSocket.ts"
import * as Access from "./access/Access.ts"
import * as Sessions from "./auth/Sessions.ts"
import * as RoleStore from "./system/RoleStore.ts"
import * as RuntimeSettings from "./system/RuntimeSettings.ts"
import * as SystemBot from "./bots/SystemBot.ts"
import * as CallRepo from "./calls/CallRepo.ts"
import * as AllChannelsSearchRepo from "./channels/AllChannelsSearchRepo.ts"
import { AppConfig, type ResolvedConfig } from "./Config.ts"
import * as CountRepo from "./counts/CountRepo.ts"
import * as DeviceRepo from "./devices/DeviceRepo.ts"
import * as DeviceSweep from "./devices/DeviceSweep.ts"
import * as DraftRepo from "./drafts/DraftRepo.ts"
import * as EventBus from "./events/EventBus.ts"
import * as FileSettings from "./files/FileSettings.ts"
import * as InvitationRepo from "./invitations/InvitationRepo.ts"
import * as MfaRepo from "./mfa/MfaRepo.ts"
import * as PostHistoryRepo from "./posts/PostHistoryRepo.ts"
import * as PageCache from "./posts/PageCache.ts"
import * as TeamUnreads from "./teams/TeamUnreads.ts"
import * as ChannelViews from "./channels/ChannelViews.ts"
import * as PostRepo from "./posts/PostRepo.ts"
import * as PreferenceRepo from "./preferences/PreferenceRepo.ts"
import * as PushNotifier from "./push/Notifier.ts"
import * as Push from "./push/Push.ts"
import * as PushQueue from "./push/PushQueue.ts"
import * as PushSettings from "./push/PushSettings.ts"
import * as Hub from "./realtime/Hub.ts"
import * as Draining from "./health/Draining.ts"
import * as SecurityEventLog from "./security/SecurityEventLog.ts"
import * as LiveStats from "./realtime/LiveStats.ts"
import * as SocketServer from "./realtime/SocketServer.ts"
import * as UserTokenRepo from "./recovery/UserTokenRepo.ts"
import * as ReminderJob from "./reminders/Reminders.ts"
import * as ScheduledPostJob from "./scheduled/ScheduledPostJob.ts"
import * as ScheduledPostRepo from "./scheduled/ScheduledPostRepo.ts"
import * as SsoDirectory from "./sso/SsoDirectory.ts"
import * as Presence from "./status/Presence.ts"
import * as Statuses from "./status/Statuses.ts"
import * as StatusSweeper from "./status/Sweeper.ts"
import * as DiagnosticId from "./system/DiagnosticId.ts"
import * as Installation from "./system/Installation.ts"
import * as SigningKey from "./system/SigningKey.ts"
import * as ThreadRepo from "./threads/ThreadRepo.ts"
import * as UserDirectory from "./users/UserDirectory.ts"
import * as UserRepo from "./users/UserRepo.ts"
import * as WebApp from "./web/WebApp.ts"
import * as CommandFibers from "./commands/CommandFibers.ts"
import * as EmailNotifications from "./mail/EmailNotifications.ts"
import * as TokenSweep from "./recovery/TokenSweep.ts"
import * as PendingPostIds from "./posts/PendingPostIds.ts"
import * as OutgoingDispatch from "./webhooks/OutgoingDispatch.ts"
import * as LinkPreviewJob from "./links/LinkPreviewJob.ts"
import * as LinkPreviews from "./links/LinkPreviews.ts"
import * as ImageProxy from "./links/ImageProxy.ts"
import * as OutgoingHookCache from "./webhooks/OutgoingHookCache.ts"

/**
 * The layer graph, assembled here and nowhere else: capabilities chosen once from Config (or overridden by tests),
 * migrations applied, feature services on top, the services built on those (realtime, push), the per-node
 * background programs. Server.ts puts the HTTP program on top; the admin CLI runs its commands over `adminLayers`.
 * Feature modules export their own layer (`Layer.effect(Tag, make)`) without providing its dependencies: they meet
 * here. Nothing here holds logic.
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
  readonly images?: Layer.Layer<ImagesLayer.Images>
  readonly webSockets?: Layer.Layer<WebSocketLayer.WebSockets>
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
    OutboundHttpLayer.layerOperatorHttp,
    // Outside production a developer may try SSO against a provider on plain http (a local Keycloak); the admin
    // answer and the log warn about every such URL. Production speaks https only.
    overrides.idp ?? IdPLayer.layer({ allowInsecureRequests: !config.isProduction }),
    overrides.mailer ?? MailerLayer.layer(smtpSettings(config)),
    overrides.images ?? ImagesLayer.layer,
    overrides.webSockets ?? WebSocketLayer.layer,
    Draining.layer,
    SecurityEventLog.layer,
    Layer.succeed(AppConfig, config)
  )

/** Applies pending migrations before anything serves. */
const migrated = Layer.effectDiscard(Migrations.run)

/** Feature services; each feature adds its layer here. */
const services = Layer.mergeAll(
  Access.layer.pipe(Layer.provide(RoleStore.layer)),
  RoleStore.layer,
  RuntimeSettings.layer,
  Sessions.layer.pipe(Layer.provide(RuntimeSettings.layer)),
  UserRepo.layer,
  UserTokenRepo.layer,
  InvitationRepo.layer,
  MfaRepo.layer.pipe(Layer.provide(UserRepo.layer)),
  DraftRepo.layer,
  ScheduledPostRepo.layer,
  CountRepo.layer,
  TeamUnreads.layer,
  ChannelViews.layer,
  AllChannelsSearchRepo.layer,
  UserDirectory.layer,
  PreferenceRepo.layer,
  SigningKey.layer,
  DiagnosticId.layer,
  Installation.layer,
  FileSettings.layer,
  DeviceRepo.layer,
  PushSettings.layer,
  CallRepo.layer,
  PostRepo.layer,
  PageCache.layer,
  PostHistoryRepo.layer,
  ThreadRepo.layer,
  SsoDirectory.layer,
  WebApp.layer,
  OutgoingHookCache.layer,
  LinkPreviews.layer,
  ImageProxy.layer,
  SystemBot.layer.pipe(Layer.provide(UserRepo.layer)), // the same UserRepo (layers are shared by reference)
  CommandFibers.layer
).pipe(Layer.provideMerge(EventBus.layer)) // Sessions announce ended sessions on it

/** The realtime services: the hub with presence and statuses under it, the sockets and the live stats it feeds. */
const realtime = Layer.merge(LiveStats.layer, SocketServer.layer).pipe(
  Layer.provideMerge(Hub.layer),
  Layer.provideMerge(Layer.mergeAll(Presence.layer, Statuses.layer))
)

/** Deciding pushes (Push) over the delivery queue (PushQueue). */
const push = Push.layer.pipe(Layer.provideMerge(PushQueue.layer))

/** Services built on the ones above (the realtime hub on the event bus, push on devices and settings). */
const dependentServices = Layer.merge(realtime, push)

/** Long-running per-node programs (the realtime hub, push workers): each feature adds its layer here. */
export const background = Layer.mergeAll(PushNotifier.layer, DeviceSweep.layer, StatusSweeper.layer, ReminderJob.layer, ScheduledPostJob.layer, OutgoingDispatch.layer,
  EmailNotifications.layer, LinkPreviewJob.layer, TokenSweep.layer, PendingPostIds.sweepLayer)

/** Everything the HTTP program and the background programs run over, migrations applied first. */
export const ready = (config: ResolvedConfig, overrides: CapabilityOverrides = {}) =>
  dependentServices.pipe(Layer.provideMerge(services), Layer.provide(migrated), Layer.provideMerge(capabilities(config, overrides)))

/** What an admin command runs over: the server's capabilities (a small pool), sessions and users, migrations applied first. */
export const adminLayers = (config: ResolvedConfig) =>
  Layer.mergeAll(Sessions.layer.pipe(Layer.provideMerge(RuntimeSettings.layer)), UserRepo.layer).pipe(
    Layer.provideMerge(EventBus.layer),
    Layer.provide(migrated),
    Layer.provideMerge(capabilities({ ...config, dbPoolMin: 0, dbPoolMax: 2 }))
  )

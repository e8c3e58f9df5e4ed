import { Context, Data, Effect, Layer, Metric, Option, Queue, Redacted } from "effect"
import nodemailer from "nodemailer"
import type { ConnectionOptions } from "node:tls"
import { makeCircuitBreaker, Policies } from "./Resilience.ts"

/**
 * Outgoing email: one capability for password resets, verification mails and invitations. Callers hand a message to
 * `enqueue`, which returns at once: a bounded queue and a worker deliver it off the request path, through a circuit
 * breaker and a bounded retry (only for failures the SMTP server may not repeat). `send` delivers and waits, for the
 * worker and for tests. The live transport speaks SMTP through nodemailer; the memory one records what it was given.
 */

export interface MailMessage {
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string
}

/** No SMTP server is configured: the features that mail are switched off. */
export class MailerNotConfigured extends Data.TaggedError("MailerNotConfigured")<{}> {}

/** The SMTP server could not be reached or refused the message; `permanent` when retrying would get the same answer. */
export class MailDeliveryError extends Data.TaggedError("MailDeliveryError")<{
  readonly reason: string
  readonly permanent: boolean
}> {}

/** The per-node queue is full: the message was dropped rather than holding the caller. */
export class MailQueueFull extends Data.TaggedError("MailQueueFull")<{}> {}

export interface MailerService {
  /** Whether mail can be sent at all (config/client's email switches follow it). */
  readonly enabled: boolean
  /** Delivers one message and waits for the server's answer (retries and breaker included). */
  readonly send: (message: MailMessage) => Effect.Effect<void, MailerNotConfigured | MailDeliveryError>
  /** Queues a message for delivery in the background and returns at once. */
  readonly enqueue: (message: MailMessage) => Effect.Effect<void, MailerNotConfigured | MailQueueFull>
}

export class Mailer extends Context.Tag("service/Mailer")<Mailer, MailerService>() {}

export const mailsSent = Metric.counter("service_mail_sent_total", { description: "Mails accepted by the SMTP server", incremental: true })
export const mailsFailed = Metric.counter("service_mail_failed_total", {
  description: "Mails given up on after their retries, or dropped because the queue was full",
  incremental: true
})

/** One attempt at handing one message to the transport. */
export type Transport = (message: MailMessage) => Effect.Effect<void, MailDeliveryError>

export interface QueueOptions {
  /** Messages waiting per node; more are dropped (and counted). 1000 by default. */
  readonly capacity?: number
  /** Messages delivered at once. 2 by default. */
  readonly workers?: number
}

/**
 * The part shared by every transport: breaker, retry, queue and workers. The workers live in the layer's scope, so
 * shutting down stops them (queued mail is lost: it is a notification, and the sender can ask again).
 */
export const makeWith = (transport: Transport, options: QueueOptions = {}) =>
  Effect.gen(function*() {
    const breaker = yield* makeCircuitBreaker({
      name: "smtp",
      maxFailures: 5,
      resetAfter: "30 seconds",
      // A refused recipient says nothing about the server's health.
      isFailure: (error) => !(error instanceof MailDeliveryError && error.permanent)
    })
    const send = (message: MailMessage) =>
      breaker.protect(transport(message)).pipe(
        Effect.retry({
          schedule: Policies.outbound,
          while: (error) => error._tag === "MailDeliveryError" && !error.permanent
        }),
        Effect.catchTag("CircuitOpenError", (open) =>
          Effect.fail(new MailDeliveryError({ reason: open.message, permanent: false }))),
        Effect.tap(() => Metric.increment(mailsSent))
      )
    const queue = yield* Effect.acquireRelease(Queue.dropping<MailMessage>(options.capacity ?? 1000), Queue.shutdown)
    const worker = Queue.take(queue).pipe(
      Effect.flatMap((message) =>
        send(message).pipe(
          Effect.catchAll((error) =>
            Metric.increment(mailsFailed).pipe(
              // The address is personal data and the reason may quote it: neither is logged.
              Effect.zipRight(Effect.logWarning("mail not delivered").pipe(Effect.annotateLogs({ permanent: error.permanent })))
            ))
        )),
      Effect.forever
    )
    for (let i = 0; i < (options.workers ?? 2); i++) yield* Effect.forkScoped(worker)
    const service: MailerService = {
      enabled: true,
      send,
      enqueue: (message) =>
        Effect.flatMap(Queue.offer(queue, message), (accepted) =>
          accepted ? Effect.void : Metric.increment(mailsFailed).pipe(Effect.zipRight(Effect.fail(new MailQueueFull()))))
    }
    return service
  })

/** The service when no SMTP server is configured. */
export const disabled: MailerService = {
  enabled: false,
  send: () => Effect.fail(new MailerNotConfigured()),
  enqueue: () => Effect.fail(new MailerNotConfigured())
}

export interface SmtpSettings {
  /** smtp:// or smtps://, possibly with user and password in it. */
  readonly url: Redacted.Redacted
  readonly username: Option.Option<string>
  readonly password: Option.Option<Redacted.Redacted>
  /** The From address of every mail. */
  readonly from: string
  /** Extra TLS options (a private CA for tests or a company relay). */
  readonly tls?: ConnectionOptions
  readonly queue?: QueueOptions
}

/**
 * The nodemailer transport. smtps:// speaks TLS from the first byte; smtp:// upgrades with STARTTLS whenever the
 * server offers it (nodemailer's default) and verifies the certificate. Separate credentials win over those in the
 * URL, so that a password need not be URL-encoded.
 */
export const smtpTransport = (settings: SmtpSettings) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const url = new URL(Redacted.value(settings.url))
      const user = Option.getOrElse(settings.username, () => decodeURIComponent(url.username))
      const pass = Option.match(settings.password, { onNone: () => decodeURIComponent(url.password), onSome: Redacted.value })
      const secure = url.protocol === "smtps:"
      return nodemailer.createTransport({
        host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: url.port === "" ? (secure ? 465 : 587) : Number(url.port),
        secure,
        auth: user === "" ? undefined : { user, pass },
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
        ...(settings.tls === undefined ? {} : { tls: settings.tls })
      })
    }),
    (transporter) => Effect.sync(() => transporter.close())
  ).pipe(Effect.map((transporter): Transport => (message) =>
    Effect.tryPromise({
      try: () => transporter.sendMail({ from: settings.from, to: message.to, subject: message.subject, text: message.text, html: message.html }),
      catch: (error) => {
        const e = error as { message?: string; permanent?: boolean; responseCode?: number }
        return new MailDeliveryError({
          reason: e.message ?? String(error),
          permanent: e.permanent === true || (e.responseCode !== undefined && e.responseCode >= 500 && e.responseCode !== 503)
        })
      }
    }).pipe(Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new MailDeliveryError({ reason: "timed out", permanent: false }) }), Effect.asVoid)))

export const makeLive = (settings: SmtpSettings) => Effect.flatMap(smtpTransport(settings), (t) => makeWith(t, settings.queue))

/** The live layer, or the disabled service when no SMTP URL is set. */
export const layer = (settings: Option.Option<SmtpSettings>): Layer.Layer<Mailer> =>
  Option.match(settings, {
    onNone: () => Layer.succeed(Mailer, disabled),
    onSome: (s) => Layer.scoped(Mailer, makeLive(s))
  })

/**
 * An in-memory transport for tests: records every accepted message; `failWith` scripts the next attempts' failures.
 */
export const makeMemory = (options: QueueOptions = {}) => {
  const sent: Array<MailMessage> = []
  const failures: Array<MailDeliveryError> = []
  const transport: Transport = (message) =>
    Effect.suspend(() => {
      const failure = failures.shift()
      if (failure !== undefined) return Effect.fail(failure)
      sent.push(message)
      return Effect.void
    })
  return {
    sent,
    failWith: (...errors: Array<MailDeliveryError>) => void failures.push(...errors),
    make: makeWith(transport, options),
    layer: Layer.scoped(Mailer, makeWith(transport, options))
  }
}


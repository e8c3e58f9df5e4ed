import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Exit, Option, Redacted } from "effect"
import * as Mailer from "../../layers/Mailer.ts"
import { type LoopbackSmtp, selfSignedCert, startSmtpServer, type SmtpOptions } from "../support/SmtpServer.ts"
import { eventually, mailerContract } from "./MailerContract.ts"

/** The Mailer contract against memory and against nodemailer over a real loopback SMTP server, then SMTP specifics. */
const smtp = (options: SmtpOptions = {}) =>
  Effect.acquireRelease(Effect.promise(() => startSmtpServer(options)), (s) => Effect.promise(() => s.close()))

const live = (server: LoopbackSmtp, settings: Partial<Mailer.SmtpSettings> = {}) =>
  Mailer.makeLive({
    url: Redacted.make(server.url),
    username: Option.none(),
    password: Option.none(),
    from: "Chat <chat@example.com>",
    ...settings
  })

describe("Mailer in memory", () => {
  for (const [name, body] of mailerContract) {
    it.scopedLive(name, () => {
      const memory = Mailer.makeMemory()
      return body({ make: memory.make, received: () => memory.sent })
    })
  }

  it.scopedLive("retries a transient failure, and gives up at once on a permanent one", () =>
    Effect.gen(function*() {
      const memory = Mailer.makeMemory()
      const mailer = yield* memory.make
      memory.failWith(new Mailer.MailDeliveryError({ reason: "421 try later", permanent: false }))
      yield* mailer.send({ to: "a@example.com", subject: "s", text: "t", html: "<p>t</p>" })
      expect(memory.sent.map((m) => m.to)).toEqual(["a@example.com"])
      memory.failWith(new Mailer.MailDeliveryError({ reason: "550 no such user", permanent: true }), new Mailer.MailDeliveryError({ reason: "unused", permanent: true }))
      const refused = yield* Effect.exit(mailer.send({ to: "b@example.com", subject: "s", text: "t", html: "<p>t</p>" }))
      expect(Exit.isFailure(refused)).toBe(true)
      expect(memory.sent.map((m) => m.to)).toEqual(["a@example.com"])
    }))

  it.scopedLive("a full queue refuses at once instead of holding the caller", () =>
    Effect.gen(function*() {
      // A transport that never answers keeps the single worker busy, so the queue fills.
      const mailer = yield* Mailer.makeWith(() => Effect.never, { capacity: 2, workers: 1 })
      const m = { to: "a@example.com", subject: "s", text: "t", html: "<p>t</p>" }
      yield* mailer.enqueue(m)
      yield* Effect.sleep("50 millis") // the worker takes the first one (no condition to poll: the queue hides it)
      yield* mailer.enqueue(m)
      yield* mailer.enqueue(m)
      const full = yield* Effect.flip(mailer.enqueue(m))
      expect(full._tag).toBe("MailQueueFull")
    }))

  it.effect("without SMTP the mailer is disabled and says so", () =>
    Effect.gen(function*() {
      expect(Mailer.disabled.enabled).toBe(false)
      expect((yield* Effect.flip(Mailer.disabled.send({ to: "a@example.com", subject: "s", text: "t", html: "" })))._tag).toBe("MailerNotConfigured")
      expect((yield* Effect.flip(Mailer.disabled.enqueue({ to: "a@example.com", subject: "s", text: "t", html: "" })))._tag).toBe("MailerNotConfigured")
    }))
})

describe("Mailer over SMTP (loopback smtp-server)", () => {
  for (const [name, body] of mailerContract) {
    it.scopedLive(name, () =>
      Effect.gen(function*() {
        const server = yield* smtp()
        yield* body({ make: live(server), received: () => server.received.map((m) => ({ ...m, to: m.to.join(",") })) })
      }))
  }

  it.scopedLive("authenticates with the user and password of the URL, or with the separate variables", () =>
    Effect.gen(function*() {
      const server = yield* smtp({ credentials: { user: "mailer", password: "p@ss:w/rd" } })
      const inUrl = yield* live(server, { url: Redacted.make(server.url.replace("//", `//mailer:${encodeURIComponent("p@ss:w/rd")}@`)) })
      yield* inUrl.send({ to: "a@example.com", subject: "url", text: "t", html: "<p>t</p>" })
      const separate = yield* live(server, { username: Option.some("mailer"), password: Option.some(Redacted.make("p@ss:w/rd")) })
      yield* separate.send({ to: "b@example.com", subject: "vars", text: "t", html: "<p>t</p>" })
      expect(server.received.map((m) => [m.subject, m.user, m.from])).toEqual([["url", "mailer", "chat@example.com"], ["vars", "mailer", "chat@example.com"]])
      const wrong = yield* live(server, { username: Option.some("mailer"), password: Option.some(Redacted.make("nope")) })
      const refused = yield* Effect.flip(wrong.send({ to: "c@example.com", subject: "x", text: "t", html: "" }))
      expect(refused).toMatchObject({ _tag: "MailDeliveryError", permanent: true })
    }))

  it.scopedLive("upgrades with STARTTLS when the server offers it, and speaks TLS from the start on smtps://", () =>
    Effect.gen(function*() {
      const cert = selfSignedCert()
      const starttls = yield* smtp({ tls: cert })
      const a = yield* live(starttls, { tls: { ca: cert.cert } })
      yield* a.send({ to: "a@example.com", subject: "starttls", text: "t", html: "<p>t</p>" })
      expect(starttls.received[0].secure).toBe(true)
      // An untrusted certificate is refused rather than sent in clear.
      const untrusted = yield* live(starttls)
      expect((yield* Effect.flip(untrusted.send({ to: "b@example.com", subject: "x", text: "t", html: "" })))._tag).toBe("MailDeliveryError")
      expect(starttls.received).toHaveLength(1)
      const implicit = yield* smtp({ tls: cert, secure: true })
      const b = yield* live(implicit, { tls: { ca: cert.cert } })
      yield* b.send({ to: "c@example.com", subject: "smtps", text: "t", html: "<p>t</p>" })
      expect(implicit.received[0]).toMatchObject({ subject: "smtps", secure: true })
    }))

  it.scopedLive("a refused recipient is permanent: one attempt, no retry", () =>
    Effect.gen(function*() {
      const server = yield* smtp({ refuse: (a) => a.startsWith("ghost") })
      const mailer = yield* live(server)
      const error = yield* Effect.flip(mailer.send({ to: "ghost@example.com", subject: "x", text: "t", html: "" }))
      expect(error).toMatchObject({ _tag: "MailDeliveryError", permanent: true })
      expect(server.connections()).toBe(1)
    }))

  it.scopedLive("an unreachable server is retried, then the breaker opens and fails fast", () =>
    Effect.gen(function*() {
      const server = yield* smtp()
      const url = server.url
      yield* Effect.promise(() => server.close())
      const mailer = yield* live(server, { url: Redacted.make(url) })
      const m = { to: "a@example.com", subject: "x", text: "t", html: "" }
      // Four attempts per send (one and three retries): the second send's first attempt is the fifth failure.
      expect(yield* Effect.flip(mailer.send(m))).toMatchObject({ _tag: "MailDeliveryError", permanent: false })
      expect(yield* Effect.flip(mailer.send(m))).toMatchObject({ _tag: "MailDeliveryError", permanent: false })
      const start = yield* Clock.currentTimeMillis
      const open = yield* Effect.flip(mailer.send(m))
      expect(open._tag === "MailDeliveryError" && open.reason).toContain("circuit breaker")
      expect((yield* Clock.currentTimeMillis) - start).toBeLessThan(10_000)
    }), 60_000)

  it.scopedLive("enqueued mail reaches the server in the background", () =>
    Effect.gen(function*() {
      const server = yield* smtp()
      const mailer = yield* live(server)
      yield* mailer.enqueue({ to: "q@example.com", subject: "queued", text: "t", html: "<p>t</p>" })
      yield* eventually(() => server.received.some((m) => m.subject === "queued"))
    }))
})

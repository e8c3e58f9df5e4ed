import { expect } from "@effect/vitest"
import { Clock, Effect, type Scope } from "effect"
import type { MailerService, MailMessage } from "../../layers/Mailer.ts"

/**
 * What every Mailer owes its callers, written once and run against the memory transport and against nodemailer
 * talking to a real SMTP server on loopback. `received` is what reached the other end.
 */
export interface MailerHarness {
  readonly make: Effect.Effect<MailerService, unknown, Scope.Scope>
  readonly received: () => ReadonlyArray<MailMessage>
}

type Case = readonly [name: string, body: (h: MailerHarness) => Effect.Effect<void, unknown, Scope.Scope>]

/** Polls until `check` holds (mail is delivered by a background worker), failing after `ms`. */
export const eventually = (check: () => boolean, ms = 5000) =>
  Effect.gen(function*() {
    const deadline = (yield* Clock.currentTimeMillis) + ms
    while (!check()) {
      if ((yield* Clock.currentTimeMillis) > deadline) return yield* Effect.die(new Error("condition not met in time"))
      yield* Effect.sleep("20 millis")
    }
  })

const message = (n: number): MailMessage => ({
  to: `person${n}@example.com`,
  subject: `Réinitialisation n°${n}`,
  text: `Hello ${n}, follow https://chat.example.com/reset_password_complete?token=${"x".repeat(90)}${n} within the hour.`,
  html: `<p>Hello ${n}, <a href="https://chat.example.com/x?token=${n}">reset</a> — ✓</p>`
})

export const mailerContract: ReadonlyArray<Case> = [
  ["send delivers the message with its recipient, subject, text and HTML intact", (h) =>
    Effect.gen(function*() {
      const mailer = yield* h.make
      expect(mailer.enabled).toBe(true)
      yield* mailer.send(message(1))
      const got = h.received().find((m) => m.to === "person1@example.com")
      expect(got?.subject).toBe(message(1).subject)
      expect(got?.text.trim()).toBe(message(1).text)
      expect(got?.html.trim()).toBe(message(1).html)
    })],
  ["enqueue returns before delivery and every queued message arrives once", (h) =>
    Effect.gen(function*() {
      const mailer = yield* h.make
      for (let n = 10; n < 15; n++) yield* mailer.enqueue(message(n))
      yield* eventually(() => [10, 11, 12, 13, 14].every((n) => h.received().some((m) => m.to === `person${n}@example.com`)))
      for (let n = 10; n < 15; n++) expect(h.received().filter((m) => m.to === `person${n}@example.com`)).toHaveLength(1)
    })]
]

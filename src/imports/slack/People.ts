import { Effect } from "effect"
import type * as Slack from "../../../schemas/SlackExport.ts"
import { isValidEmail, USERNAME_MAX } from "../../users/Validation.ts"
import { candidates, usernameFrom } from "./Names.ts"

/**
 * Slack's people as accounts here. A person whose email an account on the server already has becomes that account
 * (no duplicate); anyone else gets a username from Slack's `name`, made valid and unique against this run and the
 * server. Bots (`is_bot`, and Slackbot) become bot accounts; a bot whose name is taken by a person gets a number. The
 * choice is the same on every run, so a second run finds the accounts of the first.
 */
export interface ServerPeople {
  readonly byEmail: (email: string) => Effect.Effect<{ readonly username: string; readonly isBot: boolean } | undefined, unknown>
  readonly byName: (username: string) => Effect.Effect<{ readonly isBot: boolean } | undefined, unknown>
}

export interface Person {
  readonly slack: Slack.User
  readonly username: string
  readonly email: string
  readonly bot: boolean
  /** Matched by email to an account the server had before this import. */
  readonly matched: boolean
  readonly generatedEmail: boolean
}

const SLACKBOT = "USLACKBOT"
export const isBot = (u: Slack.User) => u.is_bot === true || u.id === SLACKBOT

/** Picks a free username: one this run has not given, and that no account on the server holds (unless `reuse` says so). */
export const freeName = (
  name: string,
  given: Set<string>,
  server: ServerPeople,
  reuse: (found: { readonly isBot: boolean }) => boolean
) =>
  Effect.gen(function*() {
    for (const candidate of candidates(name, USERNAME_MAX)) {
      if (given.has(candidate)) continue
      const found = yield* Effect.orElseSucceed(server.byName(candidate), () => undefined)
      if (found === undefined || reuse(found)) {
        given.add(candidate)
        return candidate
      }
    }
    return name
  })

export const people = (users: ReadonlyArray<Slack.User>, server: ServerPeople) =>
  Effect.gen(function*() {
    const given = new Set<string>()
    const result: Array<Person> = []
    // People before bots, so that a person keeps a name a bot also has.
    const ordered = [...users.filter((u) => !isBot(u)), ...users.filter(isBot)]
    for (const u of ordered) {
      const bot = isBot(u)
      const exported = (u.profile.email ?? "").trim().toLowerCase()
      const generatedEmail = !bot && !isValidEmail(exported)
      const email = generatedEmail || bot ? `${u.id.toLowerCase()}@slack-import.invalid` : exported
      if (!bot) {
        const found = yield* Effect.orElseSucceed(server.byEmail(email), () => undefined)
        if (found !== undefined && !found.isBot && !given.has(found.username)) {
          given.add(found.username)
          result.push({ slack: u, username: found.username, email, bot, matched: true, generatedEmail })
          continue
        }
      }
      // A bot of an earlier run is found again by its name; a person's name is never taken over.
      const username = yield* freeName(usernameFrom(u.name), given, server, (found) => bot && found.isBot)
      result.push({ slack: u, username, email, bot, matched: false, generatedEmail })
    }
    return result
  })

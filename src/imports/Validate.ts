import { Effect, Either, ParseResult, Schema, Stream } from "effect"
import * as Bulk from "../../schemas/BulkImport.ts"
import { channelNameProblem, fieldsProblem } from "../channels/ChannelValidation.ts"
import { MESSAGE_MAX_RUNES, runeLength } from "../posts/MessageText.ts"
import { DEFAULT_CHANNELS } from "../teams/Membership.ts"
import { displayNameProblem, teamNameProblem } from "../teams/TeamValidation.ts"
import { isValidEmail } from "../users/Validation.ts"
import type { NumberedLine, Source, SourceError } from "./Source.ts"

/**
 * The first pass over an import: every line decoded against Mattermost's format (schemas/BulkImport.ts) and checked
 * against what the lines before it define or the server already has, as the import will find them. Nothing is
 * written. Problems carry their line number; names seen are kept as sets (teams, channels, users: metadata, not
 * content), so memory grows with the number of users and channels, never with the number of posts.
 */
export interface Problem {
  readonly line: number
  readonly message: string
}

/** What the server already holds, for references to things the file does not define. */
export interface Existing {
  readonly team: (name: string) => Effect.Effect<boolean, unknown>
  readonly channel: (team: string, name: string) => Effect.Effect<boolean, unknown>
  readonly user: (username: string) => Effect.Effect<boolean, unknown>
}

export interface Decoded {
  readonly line: number
  readonly data: Bulk.Line
}

const SCHEMAS: Record<string, Schema.Schema<any, any>> = {
  version: Schema.Struct({ type: Schema.Literal("version"), version: Bulk.Version }),
  team: Schema.Struct({ type: Schema.Literal("team"), team: Bulk.Team }),
  channel: Schema.Struct({ type: Schema.Literal("channel"), channel: Bulk.Channel }),
  user: Schema.Struct({ type: Schema.Literal("user"), user: Bulk.User }),
  post: Schema.Struct({ type: Schema.Literal("post"), post: Bulk.Post }),
  direct_channel: Schema.Struct({ type: Schema.Literal("direct_channel"), direct_channel: Bulk.DirectChannel }),
  direct_post: Schema.Struct({ type: Schema.Literal("direct_post"), direct_post: Bulk.DirectPost }),
  emoji: Schema.Struct({ type: Schema.Literal("emoji"), emoji: Bulk.Emoji }),
  scheme: Schema.Struct({ type: Schema.Literal("scheme") }),
  role: Schema.Struct({ type: Schema.Literal("role") }),
  bot: Schema.Struct({ type: Schema.Literal("bot"), bot: Bulk.Bot })
}

/** The first few issues of a decoding failure, each with its path. */
export const describeParseError = (error: ParseResult.ParseError) =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .slice(0, 3)
    .map((i) => `${i.path.length === 0 ? "" : `${i.path.join(".")}: `}${i.message}`)
    .join("; ")

/** A line as JSON and then as one of the format's types; a string is the problem. */
export const decodeLine = (text: string): Either.Either<Bulk.Line, string> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    return Either.left(`not valid JSON (${e instanceof Error ? e.message : String(e)})`)
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return Either.left("not a JSON object")
  const type = (json as { type?: unknown }).type
  const schema = typeof type === "string" ? SCHEMAS[type] : undefined
  if (schema === undefined) return Either.left(`unknown line type ${JSON.stringify(type)} (expected one of ${Bulk.LINE_TYPES.join(", ")})`)
  return Either.mapLeft(Schema.decodeUnknownEither(schema)(json), describeParseError) as Either.Either<Bulk.Line, string>
}

export const USERNAME_PATTERN = /^[a-z0-9.\-_]{1,64}$/
const EMOJI_NAME = /^[a-zA-Z0-9_+-]{1,64}$/
/**
 * Roles are names of Mattermost's roles; those this service knows (system_admin, system_guest, team_admin,
 * team_guest, channel_admin, channel_guest) are kept, others (system_post_all, custom roles, ...) are ignored rather
 * than refused, so that a real export imports. Only a malformed list is a problem.
 */
const rolesProblem = (roles: string | null | undefined) =>
  /^[a-z0-9_ ]*$/.test(roles ?? "") ? undefined : `invalid roles "${(roles ?? "").slice(0, 80)}" (role names separated by spaces)`

/** The running state of the pass: names defined so far. */
export class Checker {
  readonly teams = new Set<string>()
  readonly channels = new Set<string>()
  readonly users = new Set<string>()
  readonly problems: Array<Problem> = []
  readonly counts: Record<string, number> = {}
  sawVersion = false
  private readonly cache = new Map<string, boolean>()

  constructor(readonly source: Source, readonly existing: Existing) {}

  private known(key: string, inFile: boolean, lookup: () => Effect.Effect<boolean, unknown>) {
    if (inFile) return Effect.succeed(true)
    const cached = this.cache.get(key)
    if (cached !== undefined) return Effect.succeed(cached)
    return Effect.tap(Effect.orElseSucceed(lookup(), () => false), (found) => Effect.sync(() => this.cache.set(key, found)))
  }

  private userKnown(username: string) {
    return this.known(`u/${username}`, this.users.has(username.toLowerCase()), () => this.existing.user(username))
  }

  check(input: NumberedLine): Effect.Effect<void> {
    const self = this
    return Effect.gen(function*() {
      const problems: Array<string> = []
      const add = (message: string | undefined) => {
        if (message !== undefined) problems.push(message)
      }
      if (input.text.trim() === "") return
      const decoded = decodeLine(input.text)
      if (Either.isLeft(decoded)) {
        self.problems.push({ line: input.line, message: decoded.left })
        return
      }
      const data = decoded.right
      self.counts[data.type] = (self.counts[data.type] ?? 0) + 1
      if (!self.sawVersion && data.type !== "version") add("the first line must be {\"type\":\"version\",\"version\":1}")
      const users = (names: ReadonlyArray<string>, what: string) =>
        Effect.forEach(names, (name) =>
          Effect.map(self.userKnown(name), (ok) => (ok ? undefined : add(`${what}: no user "${name}" (define it on an earlier line)`))), { discard: true })
      const attachments = (list: ReadonlyArray<Bulk.Attachment> | null | undefined, what: string) =>
        Effect.forEach(list ?? [], (a) =>
          Effect.map(self.source.has(a.path), (ok) => (ok ? undefined : add(`${what}: attachment "${a.path}" is not in the ${self.source.kind === "zip" ? "zip" : "JSONL's folder"}`))), { discard: true })
      const content = (p: Bulk.Reply, what: string) =>
        Effect.gen(function*() {
          yield* users([p.user], `${what} user`)
          if (runeLength(p.message) > MESSAGE_MAX_RUNES) add(`${what} message is longer than ${MESSAGE_MAX_RUNES} characters`)
          yield* users(p.flagged_by ?? [], `${what} flagged_by`)
          yield* users((p.reactions ?? []).map((r) => r.user), `${what} reaction`)
          for (const r of p.reactions ?? []) if (!EMOJI_NAME.test(r.emoji_name)) add(`${what} reaction: invalid emoji name "${r.emoji_name}"`)
          yield* attachments(p.attachments, what)
        })
      const root = (p: Bulk.Post | Bulk.DirectPost, what: string) =>
        Effect.gen(function*() {
          yield* content(p, what)
          for (const [i, reply] of (p.replies ?? []).entries()) {
            yield* content(reply, `${what} reply ${i + 1}`)
            if (reply.create_at < p.create_at) add(`${what} reply ${i + 1} is older than its post (create_at)`)
          }
          yield* users((p.thread_followers ?? []).map((f) => f.user), `${what} thread_followers`)
        })

      switch (data.type) {
        case "version":
          if (self.sawVersion) add("a second version line")
          if (data.version !== 1) add(`version ${data.version} is not supported (only version 1)`)
          self.sawVersion = true
          break
        case "team": {
          const t = data.team
          add(teamNameProblem(t.name))
          add(displayNameProblem(t.display_name))
          self.teams.add(t.name)
          // A new team comes with its default channels, which lines may name without defining them.
          for (const d of DEFAULT_CHANNELS) self.channels.add(`${t.name}/${d.name}`)
          break
        }
        case "channel": {
          const c = data.channel
          add(channelNameProblem(c.name))
          add(fieldsProblem({ display_name: c.display_name, header: c.header ?? undefined, purpose: c.purpose ?? undefined })?.[1])
          const team = yield* self.known(`t/${c.team}`, self.teams.has(c.team), () => self.existing.team(c.team))
          if (!team) add(`no team "${c.team}" (define it on an earlier line)`)
          self.channels.add(`${c.team}/${c.name}`)
          break
        }
        case "user": {
          const u = data.user
          if (!USERNAME_PATTERN.test(u.username)) add(`invalid username "${u.username.slice(0, 80)}" (1 to 64 lowercase letters, digits, '.', '-', '_')`)
          if (!isValidEmail(u.email)) add(`invalid email "${u.email.slice(0, 128)}"`)
          if (typeof u.profile_image === "string" && !(yield* self.source.has(u.profile_image))) {
            add(`profile_image "${u.profile_image}" is not in the ${self.source.kind === "zip" ? "zip" : "JSONL's folder"}`)
          }
          add(rolesProblem(u.roles))
          for (const t of u.teams ?? []) {
            const team = yield* self.known(`t/${t.name}`, self.teams.has(t.name), () => self.existing.team(t.name))
            if (!team) add(`teams: no team "${t.name}"`)
            add(rolesProblem(t.roles))
            for (const c of t.channels ?? []) {
              const key = `${t.name}/${c.name}`
              const channel = yield* self.known(`c/${key}`, self.channels.has(key), () => self.existing.channel(t.name, c.name))
              if (!channel) add(`teams.channels: no channel "${c.name}" in team "${t.name}"`)
              add(rolesProblem(c.roles))
            }
          }
          self.users.add(u.username.toLowerCase())
          break
        }
        case "bot": {
          const b = data.bot
          if (!USERNAME_PATTERN.test(b.username)) add(`invalid bot username "${b.username.slice(0, 80)}" (1 to 64 lowercase letters, digits, '.', '-', '_')`)
          self.users.add(b.username.toLowerCase())
          break
        }
        case "post": {
          const p = data.post
          const key = `${p.team}/${p.channel}`
          const channel = yield* self.known(`c/${key}`, self.channels.has(key), () => self.existing.channel(p.team, p.channel))
          if (!channel) add(`no channel "${p.channel}" in team "${p.team}"`)
          yield* root(p, "post")
          break
        }
        case "direct_channel": {
          const d = data.direct_channel
          const members = d.participants?.map((m) => m.username) ?? d.members ?? []
          if (members.length < 1 || members.length > 8) add(`a direct or group channel has 1 to 8 members, not ${members.length}`)
          yield* users(members, "member")
          yield* users([...(d.favorited_by ?? []), ...(d.shown_by ?? [])], "favorited_by/shown_by")
          break
        }
        case "direct_post": {
          const p = data.direct_post
          if (p.channel_members.length < 1 || p.channel_members.length > 8) add(`channel_members: 1 to 8 members, not ${p.channel_members.length}`)
          yield* users(p.channel_members, "channel_members")
          if (!p.channel_members.some((m) => m.toLowerCase() === p.user.toLowerCase())) add(`the author "${p.user}" is not among channel_members`)
          yield* root(p, "direct post")
          break
        }
        case "emoji": {
          const e = data.emoji
          if (!EMOJI_NAME.test(e.name)) add(`invalid emoji name "${e.name.slice(0, 80)}"`)
          if (!(yield* self.source.has(e.image))) add(`emoji image "${e.image}" is not in the ${self.source.kind === "zip" ? "zip" : "JSONL's folder"}`)
          break
        }
        default:
          break
      }
      for (const message of problems) self.problems.push({ line: input.line, message })
    })
  }
}

export interface Validation {
  readonly lines: number
  readonly counts: Record<string, number>
  readonly problems: ReadonlyArray<Problem>
}

/** The whole pass; `progress` is told the number of lines read so far now and then. */
export const validate = <E = never>(source: Source, existing: Existing, progress: (lines: number) => Effect.Effect<void, E> = () => Effect.void) =>
  Effect.gen(function*() {
    const checker = new Checker(source, existing)
    let lines = 0
    yield* source.lines.pipe(Stream.runForEach((line) =>
      Effect.zipRight(checker.check(line), Effect.suspend(() => {
        lines = line.line
        return lines % 1000 === 0 ? progress(lines) : Effect.void
      }))))
    if (lines === 0) checker.problems.push({ line: 0, message: "the file holds no lines" })
    return { lines, counts: checker.counts, problems: checker.problems } satisfies Validation
  }) as Effect.Effect<Validation, SourceError | E>

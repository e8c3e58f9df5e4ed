import { Effect } from "effect"
import { createReadStream, createWriteStream } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { pipeline } from "node:stream/promises"
import * as Slack from "../../../schemas/SlackExport.ts"
import { CHANNEL_NAME_MAX, DISPLAY_NAME_MAX, HEADER_MAX, PURPOSE_MAX } from "../../channels/ChannelValidation.ts"
import { SourceError } from "../Source.ts"
import { type Authors, convertMessages } from "./Messages.ts"
import { channelNameFrom, unique } from "./Names.ts"
import { freeName, people, type ServerPeople } from "./People.ts"
import { decodeEntities, slackToMarkdown } from "./Markup.ts"
import type { ExportZip } from "./ExportZip.ts"

/**
 * A Slack export as a file in Mattermost's bulk format (as Mattermost's mmetl does), which the bulk importer then
 * validates and writes idempotently in batches. The metadata lines (team, channels, people, bots, direct channels) are
 * built in memory, bounded by people and channels; the posts go to a second file one conversation at a time (a
 * conversation's days are read together, because a thread's replies can come days after its start), and the two are
 * joined at the end, metadata first, as the importer needs every name defined before it is used.
 */
export interface Report {
  readonly people: number
  readonly matched: number
  readonly bots: number
  readonly channels: number
  readonly direct: number
  readonly messages: number
  /** Shared files whose bytes the export carries, attached to their posts. */
  readonly files: number
  /** Shared files the export only links to (url_private): listed so that the admin can fetch them from Slack. */
  readonly linked: ReadonlyArray<LinkedFile>
  readonly linkedTotal: number
  readonly skipped: Record<string, number>
}

export interface LinkedFile {
  readonly conversation: string
  readonly ts: string
  readonly name: string
  readonly url: string
}

/** At most this many linked files are named in the report; the total is always given. */
export const MAX_LINKED_LISTED = 1000

export interface ConvertOptions {
  readonly team: string
  readonly now: number
  readonly server: ServerPeople
  /** After each conversation's start: a line for the terminal, and the conversations read so far of all. */
  readonly progress: (text: string, done: number, total: number) => Effect.Effect<void, unknown>
}

const cut = (text: string, max: number) => [...text].slice(0, max).join("")
const DAY = /^\d{4}-\d{2}-\d{2}\.json$/
/** Where the export tools put a shared file's bytes: `__uploads/<file id>/<name>`. */
const UPLOAD = /^__uploads\/([^/]+)\/[^/]+$/
const FALLBACK_BOT = "slack-integrations"
const DAYS_AT_ONCE = 4

interface Conversation {
  readonly folder: string
  readonly channel?: string
  readonly members?: ReadonlyArray<string>
}

export const convert = (zip: ExportZip, file: string, dir: string, options: ConvertOptions) =>
  Effect.scoped(Effect.gen(function*() {
    const fail = (message: string) => new SourceError({ message: `${file}: ${message}` })
    const io = <A>(what: string, run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: (e) => fail(`${what}: ${e instanceof Error ? e.message : String(e)}`) })
    const skipped: Record<string, number> = {}
    const skip = (reason: string, n = 1) => void (skipped[reason] = (skipped[reason] ?? 0) + n)

    const users = (yield* zip.read("users.json", Slack.Users)) ?? []
    const publics = (yield* zip.read("channels.json", Slack.Channels)) ?? []
    const privates = (yield* zip.read("groups.json", Slack.Channels)) ?? []
    const dms = (yield* zip.read("dms.json", Slack.Directs)) ?? []
    const mpims = (yield* zip.read("mpims.json", Slack.Channels)) ?? []

    const persons = yield* people(users, options.server)
    const usernames = new Map(persons.map((p) => [p.slack.id, p.username]))
    const botIds = new Map(persons.filter((p) => p.bot && p.slack.profile.bot_id != null).map((p) => [p.slack.profile.bot_id!, p.username]))
    const humans = persons.filter((p) => !p.bot)
    const owner = humans.find((p) => p.slack.is_primary_owner === true || p.slack.is_owner === true) ?? humans.find((p) => p.slack.is_admin === true) ?? humans[0]
    // Bot messages from a bot users.json does not list come from one bot account, under the name they posted with.
    const fallbackBot = yield* freeName(FALLBACK_BOT, new Set(persons.map((p) => p.username)), options.server, (found) => found.isBot)
    const fallbackUsed = { used: false }
    const uploads = new Map<string, string>()
    for (const name of zip.names) {
      const match = UPLOAD.exec(name)
      if (match !== null && !uploads.has(match[1])) uploads.set(match[1], name)
    }
    const linked: Array<LinkedFile> = []
    let linkedTotal = 0
    let files = 0
    let conversation = ""

    const channelNames = new Map<string, string>()
    const takenChannels = new Set<string>()
    for (const c of [...publics, ...privates]) {
      const name = unique(channelNameFrom(c.name, c.id), CHANNEL_NAME_MAX, (n) => takenChannels.has(n))
      takenChannels.add(name)
      channelNames.set(c.id, name)
    }
    const authors: Authors = {
      user: (id) => usernames.get(id),
      channel: (id) => channelNames.get(id),
      bot: (botId) => {
        const known = botId == null ? undefined : botIds.get(botId)
        if (known !== undefined) return known
        fallbackUsed.used = true
        return fallbackBot
      },
      file: (f, ts) => {
        const path = f.id == null ? undefined : uploads.get(f.id)
        if (path !== undefined) {
          files += 1
          return { attachment: { path } }
        }
        if (f.mode === "tombstone" || f.mode === "hidden_by_limit") {
          skip("files Slack had deleted or hidden (no bytes, no link)")
          return undefined
        }
        const name = f.name ?? f.title ?? f.id ?? "file"
        const url = f.url_private ?? f.permalink ?? ""
        linkedTotal += 1
        if (linked.length < MAX_LINKED_LISTED) linked.push({ conversation, ts, name, url })
        return url === "" ? undefined : { link: `[${name.replace(/[[\]]/g, "")}](${url})` }
      }
    }

    const header: Array<unknown> = [{ type: "version", version: 1 }, { type: "team", team: { name: options.team, display_name: options.team, type: "O" } }]
    const memberships = new Map<string, Array<string>>()
    const conversations: Array<Conversation> = []
    for (const [list, type] of [[publics, "O"], [privates, "P"]] as const) {
      for (const c of list) {
        const name = channelNames.get(c.id)!
        const topic = slackToMarkdown(c.topic?.value ?? "", authors)
        header.push({
          type: "channel",
          channel: {
            team: options.team,
            name,
            display_name: cut(c.name.trim() === "" ? name : c.name, DISPLAY_NAME_MAX),
            type,
            header: cut(topic, HEADER_MAX),
            purpose: cut(decodeEntities(c.purpose?.value ?? ""), PURPOSE_MAX),
            ...(c.creator != null && usernames.has(c.creator) ? { creator: usernames.get(c.creator) } : {}),
            ...(c.is_archived === true ? { deleted_at: options.now } : {})
          }
        })
        for (const id of new Set(c.members ?? [])) {
          if (!usernames.has(id)) continue
          memberships.set(id, [...(memberships.get(id) ?? []), name])
        }
        conversations.push({ folder: c.name, channel: name })
      }
    }

    for (const p of humans) {
      const admin = p.slack.is_admin === true || p.slack.is_owner === true
      const profile = p.slack.profile
      if (p.generatedEmail) skip("people without an email in the export (given one ending in @slack-import.invalid)")
      header.push({
        type: "user",
        user: {
          username: p.username,
          email: p.email,
          first_name: cut(profile.first_name ?? "", 64),
          last_name: cut(profile.last_name ?? "", 64),
          nickname: cut(profile.display_name ?? "", 64),
          position: cut(profile.title ?? "", 128),
          ...(p.slack.deleted === true ? { delete_at: options.now } : {}),
          teams: [{
            name: options.team,
            roles: admin ? "team_admin team_user" : "team_user",
            channels: (memberships.get(p.slack.id) ?? []).map((name) => ({ name, roles: "channel_user" }))
          }]
        }
      })
    }
    const bots: Array<unknown> = persons.filter((p) => p.bot).map((p) => ({
      type: "bot",
      bot: {
        username: p.username,
        owner: owner?.username ?? "",
        display_name: cut(p.slack.real_name ?? p.slack.profile.real_name ?? p.slack.name, 64),
        ...(p.slack.deleted === true ? { delete_at: options.now } : {})
      }
    }))

    const directs: Array<unknown> = []
    for (const [list, what] of [[dms, "direct"], [mpims, "group"]] as const) {
      for (const d of list) {
        const members = [...new Set(d.members)].map((id) => usernames.get(id))
        if (members.some((m) => m === undefined)) {
          skip(`${what} conversations with someone not in users.json`)
          continue
        }
        if (members.length > 8) {
          skip(`${what} conversations of more than 8 people`)
          continue
        }
        const names = members as Array<string>
        directs.push({ type: "direct_channel", direct_channel: { members: names } })
        conversations.push({ folder: "name" in d ? d.name : d.id, members: names })
      }
    }

    // The posts, one conversation at a time.
    const postsFile = path.join(dir, "posts.jsonl")
    const posts = yield* Effect.acquireRelease(io("cannot write a temporary file", () => fs.open(postsFile, "w")), (h) => Effect.promise(() => h.close()))
    let messages = 0
    for (const [index, c] of conversations.entries()) {
      const days = zip.names.filter((n) => n.startsWith(`${c.folder}/`) && DAY.test(n.slice(c.folder.length + 1))).sort()
      conversation = c.folder
      yield* options.progress(`reading ${c.folder} (${index + 1}/${conversations.length}, ${days.length} days)`, index, conversations.length)
      // A few days are read at once: each is a few round trips to the thread pool (reading, inflating), which one at a
      // time left the process idle for a third of the conversion. The conversation's days are held together anyway.
      const all = (yield* Effect.forEach(days, (day) => zip.read(day, Slack.Day), { concurrency: DAYS_AT_ONCE })).flatMap((d) => d ?? [])
      const converted = convertMessages(all, authors, skip, c.members)
      messages += converted.messages
      const lines = converted.roots.map((p) =>
        JSON.stringify(c.channel !== undefined
          ? { type: "post", post: { team: options.team, channel: c.channel, ...p } }
          : { type: "direct_post", direct_post: { channel_members: c.members, ...p } })
      )
      if (lines.length > 0) yield* io("cannot write a temporary file", () => posts.write(lines.join("\n") + "\n"))
    }

    if (fallbackUsed.used) {
      bots.push({ type: "bot", bot: { username: fallbackBot, owner: owner?.username ?? "", display_name: "Slack integrations" } })
    }
    const out = path.join(dir, "import.jsonl")
    yield* io("cannot write a temporary file", async () => {
      await fs.writeFile(out, [...header, ...bots, ...directs].map((l) => JSON.stringify(l)).join("\n") + "\n")
      await posts.close().catch(() => undefined)
      await pipeline(createReadStream(postsFile), createWriteStream(out, { flags: "a" }))
    })
    const report: Report = {
      people: humans.length,
      matched: humans.filter((p) => p.matched).length,
      bots: bots.length,
      channels: channelNames.size,
      direct: directs.length,
      messages,
      files,
      linked,
      linkedTotal,
      skipped
    }
    return { file: out, report }
  }))

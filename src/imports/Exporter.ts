import type { SqlClient } from "@effect/sql"
import { Data, Effect, Stream } from "effect"
import { once } from "node:events"
import { createWriteStream, type WriteStream } from "node:fs"
import * as fs from "node:fs/promises"
import { Readable } from "node:stream"
import yazl from "yazl"
import { Db } from "../../layers/Db.ts"
import { FileStore } from "../../layers/FileStore.ts"
import { PREFERENCE_FIELDS } from "../../schemas/BulkImport.ts"
import { imageKey } from "../emoji/EmojiWire.ts"
import { profileImageKey } from "../users/Avatar.ts"
import * as Rows from "./ExportRows.ts"
import { anyText } from "../../layers/SqlArrays.ts"

/**
 * Writes the server's content in Mattermost's bulk import format (the format Importer.ts reads), so that a team can
 * leave for Mattermost or another server, and as a backup of content: teams, channels, users with their memberships,
 * read state, notify props and preferences, posts with replies, reactions, flags, pins and attachments, direct and
 * group channels and their posts, custom emoji. A `.zip` holds `import.jsonl` and the files under `data/` (as
 * `mmctl export create` does); a `.jsonl` alone has no files, so its lines leave attachments and emoji out.
 * Everything streams: rows are read a page at a time (keyset pagination), lines written with back-pressure, and each
 * file copied from the FileStore into the zip when its turn comes. Password hashes are exported only when asked
 * (`passwordHashes`, for a backup that keeps sign-ins; Mattermost never exports them): otherwise imported accounts
 * sign in after a password reset.
 */
export class ExportError extends Data.TaggedError("ExportError")<{ readonly message: string }> {}

const PAGE = 200

export interface ExportResult {
  readonly lines: number
  readonly counts: Record<string, number>
  readonly files: number
}

interface Names {
  readonly users: Map<string, string>
  readonly teams: Map<string, string>
  readonly channels: Map<string, { team: string; name: string }>
}

/**
 * Where a file goes in the zip: its store key's folder and its own name (as Mattermost's paths end in the file name,
 * which the importer takes the attachment's name from).
 */
const zipPath = (f: { readonly path: string; readonly name: string }) =>
  `data/${f.path.slice(0, f.path.lastIndexOf("/") + 1)}${f.name.replace(/[/\\\0]/g, "_") || "file"}`

/** Lines of JSON written to a file stream, waiting for it to drain. */
const lineWriter = (out: WriteStream) => {
  let lines = 0
  const counts: Record<string, number> = {}
  const write = (type: string, body: unknown) =>
    Effect.promise(async () => {
      lines += 1
      counts[type] = (counts[type] ?? 0) + 1
      if (!out.write(`${JSON.stringify(type === "version" ? { type, version: body } : { type, [type]: body })}\n`)) await once(out, "drain")
    })
  return { write, result: () => ({ lines, counts }) }
}

/** Keyset pages of a query ordered by text id. */
const pages = <A extends { readonly id: string }>(query: (after: string) => Effect.Effect<ReadonlyArray<A>, unknown>, each: (rows: ReadonlyArray<A>) => Effect.Effect<void, unknown>) =>
  Effect.gen(function*() {
    let after = ""
    while (true) {
      const rows = yield* query(after)
      if (rows.length === 0) return
      yield* each(rows)
      after = rows[rows.length - 1].id
      if (rows.length < PAGE) return
    }
  })

const postLines = (sql: SqlClient.SqlClient, names: Names, withFiles: boolean, direct: boolean, write: (type: string, body: unknown) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const user = (id: string) => names.users.get(id) ?? id
    const memberNames = new Map<string, ReadonlyArray<string>>()
    let cursor = { channel: "", at: -1, id: "" }
    while (true) {
      const roots = yield* sql`
        SELECT p.id, p.channel_id, p.user_id, p.root_id, p.create_at, p.edit_at, p.message, p.type, p.props, p.is_pinned
        FROM posts p JOIN channels c ON c.id = p.channel_id
        WHERE p.root_id = '' AND p.delete_at = 0 AND c.type IN ${sql.in(direct ? ["D", "G"] : ["O", "P"])}
          AND (p.channel_id, p.create_at, p.id) > (${cursor.channel}, ${cursor.at}, ${cursor.id})
        ORDER BY p.channel_id, p.create_at, p.id
        LIMIT ${PAGE}`.pipe(Rows.Posts)
      if (roots.length === 0) return
      const rootIds = roots.map((r) => r.id)
      // `root_id <> ''` and `post_id <> ''` spell out the predicates of the partial indexes posts_root_create_idx and
      // file_infos_post_idx: PostgreSQL proves them from an IN list of at most 100 values, and a page holds 200 roots,
      // so without them every page read the whole posts table (test/performance/HotPlans.test.ts).
      const replies = yield* sql`
        SELECT id, channel_id, user_id, root_id, create_at, edit_at, message, type, props, is_pinned
        FROM posts WHERE root_id = ${anyText(sql, rootIds)} AND root_id <> '' AND delete_at = 0 ORDER BY create_at, id`.pipe(Rows.Posts)
      const ids = [...rootIds, ...replies.map((r) => r.id)]
      const reactions = yield* sql`
        SELECT post_id, user_id, emoji_name, create_at FROM reactions WHERE post_id = ${anyText(sql, ids)} AND delete_at = 0 ORDER BY create_at`.pipe(Rows.Reactions)
      const flags = yield* sql`
        SELECT name, user_id FROM preferences WHERE category = 'flagged_post' AND name = ${anyText(sql, ids)}`.pipe(Rows.Flags)
      const files = withFiles
        ? yield* sql`
            SELECT post_id, path, name FROM file_infos WHERE post_id = ${anyText(sql, ids)} AND post_id <> '' AND delete_at = 0 ORDER BY create_at, id`.pipe(Rows.PostFiles)
        : []
      const followers = yield* sql`
        SELECT post_id, user_id, last_viewed, unread_mentions FROM thread_memberships WHERE post_id = ${anyText(sql, rootIds)} AND following`.pipe(Rows.Followers)
      const group = <R, K extends keyof R>(rows: ReadonlyArray<R>, key: K) => {
        const map = new Map<R[K], Array<R>>()
        for (const r of rows) map.set(r[key], [...(map.get(r[key]) ?? []), r])
        return map
      }
      const reactionsOf = group(reactions, "post_id")
      const flagsOf = group(flags, "name")
      const filesOf = group(files, "post_id")
      const repliesOf = group(replies, "root_id")
      const followersOf = group(followers, "post_id")
      const content = (p: Rows.PostRow) => ({
        user: user(p.user_id),
        type: p.type === "" ? undefined : p.type,
        message: p.message,
        props: Object.keys(p.props).length === 0 ? undefined : p.props,
        create_at: p.create_at,
        edit_at: p.edit_at === 0 ? undefined : p.edit_at,
        is_pinned: p.is_pinned || undefined,
        flagged_by: flagsOf.get(p.id)?.map((f) => user(f.user_id)),
        reactions: reactionsOf.get(p.id)?.map((r) => ({ user: user(r.user_id), emoji_name: r.emoji_name, create_at: r.create_at })),
        attachments: filesOf.get(p.id)?.map((f) => ({ path: zipPath(f) }))
      })
      for (const root of roots) {
        const body = {
          ...content(root),
          replies: repliesOf.get(root.id)?.map(content),
          thread_followers: followersOf.get(root.id)?.map((f) => ({ user: user(f.user_id), last_viewed: f.last_viewed, unread_mentions: f.unread_mentions }))
        }
        if (direct) {
          let members = memberNames.get(root.channel_id)
          if (members === undefined) {
            const rows = yield* sql`SELECT user_id FROM channel_members WHERE channel_id = ${root.channel_id} ORDER BY user_id`.pipe(Rows.UserIds)
            members = rows.map((r) => user(r.user_id))
            memberNames.clear()
            memberNames.set(root.channel_id, members)
          }
          yield* write("direct_post", { channel_members: members, ...body })
        } else {
          const channel = names.channels.get(root.channel_id)
          if (channel !== undefined) yield* write("post", { team: channel.team, channel: channel.name, ...body })
        }
      }
      const last = roots[roots.length - 1]
      cursor = { channel: last.channel_id, at: last.create_at, id: last.id }
      if (roots.length < PAGE) return
    }
  })

const readState = (m: Rows.ChannelMemberRow) => ({
  msg_count: m.msg_count,
  msg_count_root: m.msg_count_root,
  mention_count: m.mention_count,
  mention_count_root: m.mention_count_root,
  urgend_mention_count: m.urgent_mention_count,
  last_viewed_at: m.last_viewed_at
})

const channelNotify = (p: Readonly<Record<string, string>>) => ({
  desktop: p.desktop,
  mobile: p.push,
  mark_unread: p.mark_unread,
  email: p.email,
  ignore_channel_mentions: p.ignore_channel_mentions,
  channel_auto_follow_threads: p.channel_auto_follow_threads
})

/** Writes the JSONL (to `jsonlPath`); with files, also adds every attachment and emoji image to the zip. */
export interface ExportOptions {
  /** Include each user's password hash (argon2, or bcrypt/PBKDF2 of an imported account). */
  readonly passwordHashes: boolean
}

const writeJsonl = (jsonlPath: string, zip: yazl.ZipFile | undefined, options: ExportOptions) =>
  Effect.gen(function*() {
    const db = yield* Db
    const sql = db.sql
    const out = yield* Effect.acquireRelease(Effect.sync(() => createWriteStream(jsonlPath)), (s) => Effect.sync(() => s.destroy()))
    const { write, result } = lineWriter(out)
    const withFiles = zip !== undefined
    yield* write("version", 1)

    const names: Names = { users: new Map(), teams: new Map(), channels: new Map() }
    yield* pages((after) => sql`SELECT id, username FROM users WHERE id > ${after} ORDER BY id LIMIT ${PAGE}`.pipe(Rows.UserNames), (rows) =>
      Effect.sync(() => rows.forEach((r) => names.users.set(r.id, r.username))))

    yield* pages((after) => sql`SELECT * FROM teams WHERE delete_at = 0 AND id > ${after} ORDER BY id LIMIT ${PAGE}`.pipe(Rows.Teams), (rows) =>
      Effect.forEach(rows, (t) => {
        names.teams.set(t.id, t.name)
        return write("team", { name: t.name, display_name: t.display_name, type: t.type, description: t.description, allow_open_invite: t.allow_open_invite })
      }, { discard: true }))

    yield* pages((after) => sql`
      SELECT * FROM channels WHERE type IN ('O', 'P') AND team_id IN (SELECT id FROM teams WHERE delete_at = 0) AND id > ${after}
      ORDER BY id LIMIT ${PAGE}`.pipe(Rows.Channels), (rows) =>
      Effect.forEach(rows, (c) => {
        const team = names.teams.get(c.team_id)!
        names.channels.set(c.id, { team, name: c.name })
        return write("channel", {
          team, name: c.name, display_name: c.display_name, type: c.type, header: c.header, purpose: c.purpose,
          deleted_at: c.delete_at === 0 ? undefined : c.delete_at
        })
      }, { discard: true }))

    yield* pages((after) => sql`SELECT * FROM users WHERE id > ${after} ORDER BY id LIMIT ${PAGE}`.pipe(Rows.Users), (rows) =>
      Effect.gen(function*() {
        const ids = rows.map((u) => u.id)
        const teamMembers = yield* sql`
          SELECT * FROM team_members WHERE user_id = ${anyText(sql, ids)} AND delete_at = 0 ORDER BY team_id`.pipe(Rows.TeamMembers)
        const channelMembers = yield* sql`
          SELECT cm.*, c.team_id FROM channel_members cm JOIN channels c ON c.id = cm.channel_id
          WHERE cm.user_id = ${anyText(sql, ids)} AND c.type IN ('O', 'P') ORDER BY c.name`.pipe(Rows.TeamChannelMembers)
        const prefs = yield* sql`
          SELECT user_id, category, name, value FROM preferences
          WHERE user_id = ${anyText(sql, ids)} AND category IN ('theme', 'display_settings', 'notifications', 'advanced_settings',
                'sidebar_settings', 'tutorial_step', 'favorite_channel')`.pipe(Rows.Preferences)
        const bots = yield* sql`
          SELECT user_id, description, owner_id FROM bots WHERE user_id = ${anyText(sql, ids)}`.pipe(Rows.Bots)
        for (const u of rows) {
          if (bots.some((b) => b.user_id === u.id)) continue
          const mine = prefs.filter((p) => p.user_id === u.id)
          const pref = (category: string, name: string) => mine.find((p) => p.category === category && p.name === name)?.value
          const fields: Record<string, string> = {}
          for (const [field, category, name] of PREFERENCE_FIELDS) {
            const value = pref(category, name)
            if (value !== undefined) fields[field] = value
          }
          const n = u.notify_props
          yield* write("user", {
            profile_image: withFiles && u.last_picture_update > 0 ? `data/profiles/${u.id}.png` : undefined,
            username: u.username,
            email: u.email,
            auth_service: u.auth_service === "" ? undefined : u.auth_service,
            auth_data: u.auth_data ?? undefined,
            password: options.passwordHashes && u.password !== "" ? u.password : undefined,
            nickname: u.nickname,
            first_name: u.first_name,
            last_name: u.last_name,
            position: u.position,
            roles: u.roles,
            locale: u.locale,
            delete_at: u.delete_at === 0 ? undefined : u.delete_at,
            ...fields,
            tutorial_step: pref("tutorial_step", u.id),
            notify_props: {
              desktop: n.desktop, desktop_sound: n.desktop_sound, email: n.email, mobile: n.push, mobile_push_status: n.push_status,
              channel: n.channel, comments: n.comments, mention_keys: n.mention_keys
            },
            teams: teamMembers.filter((m) => m.user_id === u.id && names.teams.has(m.team_id)).map((m) => ({
              name: names.teams.get(m.team_id),
              roles: [m.scheme_guest ? "team_guest" : "team_user", ...(m.scheme_admin ? ["team_admin"] : [])].join(" "),
              theme: pref("theme", m.team_id),
              channels: channelMembers.filter((c) => c.user_id === u.id && c.team_id === m.team_id && names.channels.has(c.channel_id)).map((c) => ({
                name: names.channels.get(c.channel_id)!.name,
                roles: [c.scheme_guest ? "channel_guest" : "channel_user", ...(c.scheme_admin ? ["channel_admin"] : [])].join(" "),
                notify_props: channelNotify(c.notify_props),
                favorite: pref("favorite_channel", c.channel_id) === "true" || undefined,
                ...readState(c)
              }))
            }))
          })
        }
      }))

    // Bots after every user, so that an owner is always defined before its bot.
    yield* pages((after) => sql`
      SELECT u.id, u.username, u.first_name, u.delete_at, b.description, b.owner_id
      FROM bots b JOIN users u ON u.id = b.user_id WHERE u.id > ${after} ORDER BY u.id LIMIT ${PAGE}`.pipe(Rows.BotUsers), (rows) =>
      Effect.forEach(rows, (b) =>
        write("bot", {
          username: b.username,
          owner: names.users.get(b.owner_id) ?? b.owner_id,
          display_name: b.first_name,
          description: b.description,
          delete_at: b.delete_at === 0 ? undefined : b.delete_at
        }), { discard: true }))

    if (withFiles) {
      yield* pages((after) => sql`SELECT id, name FROM emoji WHERE delete_at = 0 AND id > ${after} ORDER BY id LIMIT ${PAGE}`.pipe(Rows.Emoji), (rows) =>
        Effect.forEach(rows, (e) => write("emoji", { name: e.name, image: `data/${imageKey(e.id)}` }), { discard: true }))
    }

    yield* postLines(sql, names, withFiles, false, write)

    yield* pages((after) => sql`
      SELECT * FROM channels WHERE type IN ('D', 'G') AND id > ${after} ORDER BY id LIMIT ${PAGE}`.pipe(Rows.Channels), (rows) =>
      Effect.gen(function*() {
        const members = yield* sql`
          SELECT * FROM channel_members WHERE channel_id = ${anyText(sql, rows.map((c) => c.id))} ORDER BY user_id`.pipe(Rows.ChannelMembers)
        for (const c of rows) {
          const mine = members.filter((m) => m.channel_id === c.id)
          if (mine.length === 0) continue
          const favorites = yield* sql`
            SELECT user_id FROM preferences WHERE category = 'favorite_channel' AND name = ${c.id} AND value = 'true'`.pipe(Rows.UserIds)
          yield* write("direct_channel", {
            participants: mine.map((m) => ({ username: names.users.get(m.user_id) ?? m.user_id, notify_props: channelNotify(m.notify_props), ...readState(m) })),
            favorited_by: favorites.length === 0 ? undefined : favorites.map((f) => names.users.get(f.user_id) ?? f.user_id),
            header: c.header
          })
        }
      }))

    yield* postLines(sql, names, withFiles, true, write)

    out.end()
    yield* Effect.promise(() => once(out, "finish"))
    return result()
  })

/** Adds every live attachment and emoji image to the zip, each read from the store only when the zip reaches it. */
const addFiles = (zip: yazl.ZipFile) =>
  Effect.gen(function*() {
    const db = yield* Db
    const store = yield* FileStore
    const sql = db.sql
    let files = 0
    const add = (name: string, key: string) => {
      files += 1
      zip.addReadStreamLazy(name, (cb) => cb(null, Readable.from(Stream.toAsyncIterable(store.stream(key)))))
    }
    yield* pages((after) => sql`
      SELECT f.id, f.path, f.name FROM file_infos f JOIN posts p ON p.id = f.post_id
      WHERE f.delete_at = 0 AND f.post_id <> '' AND p.delete_at = 0 AND f.id > ${after} ORDER BY f.id LIMIT ${PAGE}`.pipe(Rows.Files), (rows) =>
      Effect.sync(() => rows.forEach((f) => add(zipPath(f), f.path))))
    yield* pages((after) => sql`
      SELECT id FROM users WHERE last_picture_update > 0 AND NOT is_bot AND id > ${after} ORDER BY id LIMIT ${PAGE}`.pipe(Rows.Ids), (rows) =>
      Effect.sync(() => rows.forEach((u) => add(`data/profiles/${u.id}.png`, profileImageKey(u.id)))))
    yield* pages((after) => sql`SELECT id FROM emoji WHERE delete_at = 0 AND id > ${after} ORDER BY id LIMIT ${PAGE}`.pipe(Rows.Ids), (rows) =>
      Effect.sync(() => rows.forEach((e) => add(`data/${imageKey(e.id)}`, imageKey(e.id)))))
    return files
  })

/** Exports to `file`: a zip with attachments when it ends in .zip, the JSONL alone otherwise. */
export const exportTo = (file: string, options: ExportOptions = { passwordHashes: false }) =>
  Effect.scoped(Effect.gen(function*() {
    if (!file.endsWith(".zip")) {
      const written = yield* writeJsonl(file, undefined, options)
      return { ...written, files: 0 } satisfies ExportResult
    }
    const jsonl = `${file}.import.jsonl.tmp`
    yield* Effect.addFinalizer(() => Effect.promise(() => fs.rm(jsonl, { force: true })))
    const zip = new yazl.ZipFile()
    const written = yield* writeJsonl(jsonl, zip, options)
    const out = createWriteStream(file)
    const done = new Promise<void>((resolve, reject) => {
      out.once("finish", resolve)
      out.once("error", reject)
      zip.outputStream.once("error", reject)
    })
    zip.outputStream.pipe(out)
    zip.addFile(jsonl, "import.jsonl")
    const files = yield* addFiles(zip)
    zip.end()
    yield* Effect.tryPromise({ try: () => done, catch: (e) => new ExportError({ message: `writing ${file} failed: ${e instanceof Error ? e.message : String(e)}` }) })
    return { ...written, files } satisfies ExportResult
  }))

import type { SqlClient } from "@effect/sql"
import { Chunk, Effect, Schema, Stream } from "effect"
import { Crypto, newId } from "../../layers/Crypto.ts"
import { Db } from "../../layers/Db.ts"
import { IdRow, Int8Text, rows } from "../../layers/Rows.ts"
import { FileStore } from "../../layers/FileStore.ts"
import { isVerifiableHash } from "../../layers/PasswordHashes.ts"
import type * as Bulk from "../../schemas/BulkImport.ts"
import { PREFERENCE_FIELDS } from "../../schemas/BulkImport.ts"
import { directName, groupName } from "../channels/ChannelWire.ts"
import { imageKey } from "../emoji/EmojiWire.ts"
import { mimeTypeFor } from "../files/MimeTypes.ts"
import { imageFields } from "../files/Renditions.ts"
import { hashtags } from "../posts/MessageText.ts"
import { DEFAULT_CHANNELS } from "../teams/Membership.ts"
import { insertWithDefaultChannels } from "../teams/TeamRepo.ts"
import { normalizeUpload, profileImageKey } from "../users/Avatar.ts"
import { DEFAULT_NOTIFY_PROPS } from "../users/UserRow.ts"
import * as Repo from "./ImportRepo.ts"
import type * as Source from "./Source.ts"
import { anyText } from "../../layers/SqlArrays.ts"

const Ids = rows("import Writer ids", IdRow)
const PostRefs = rows(
  "import Writer posts",
  Schema.Struct({ id: Schema.String, channel_id: Schema.String, user_id: Schema.String, create_at: Int8Text })
)
const ChannelTargets = rows("import Writer channels", Schema.Struct({ id: Schema.String, team_id: Schema.String, type: Schema.String }))
const IsBot = rows("import Writer is_bot", Schema.Struct({ is_bot: Schema.Boolean }))
const Replies = rows("import Writer replies", Schema.Struct({ root_id: Schema.String, user_id: Schema.String, create_at: Int8Text }))
const TeamIds = rows("import Writer team ids", Schema.Struct({ team_id: Schema.String }))
const UserIds = rows("import Writer user ids", Schema.Struct({ user_id: Schema.String }))

/**
 * The second pass of an import (Importer.ts): what each line writes, inside the batch's transaction. It keeps the
 * ids it has resolved (names to ids: metadata, bounded by users and channels), queues a batch's posts to write them
 * together, and counts what it created and what it found already there.
 */

/** Read whole to be normalised (sharp): far above any avatar, far below memory. */
const MAX_PROFILE_IMAGE_BYTES = 20 * 1024 * 1024

const systemRoles = (roles: string | null | undefined) => {
  const list = (roles ?? "").split(/\s+/)
  return list.includes("system_admin") ? "system_admin system_user" : list.includes("system_guest") ? "system_guest" : "system_user"
}

const has = (roles: string | null | undefined, role: string) => (roles ?? "").split(/\s+/).includes(role)

const defined = (o: Record<string, string | null | undefined>) =>
  Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => typeof e[1] === "string"))

const channelNotifyProps = (p: Bulk.UserChannel["notify_props"]) => defined({ ...(p ?? {}) })

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll("-", "")

const basename = (p: string) => p.split("/").pop() ?? p

const extensionOf = (name: string) => {
  const dot = name.lastIndexOf(".")
  return dot < 0 ? "" : name.slice(dot + 1).toLowerCase()
}

/** The writes of one run, with the ids it has resolved (names to ids: metadata, bounded by users and channels). */
export const makeWriter = (source: Source.Source) =>
  Effect.gen(function*() {
    const db = yield* Db
    const store = yield* FileStore
    const crypto = yield* Crypto
    const sql: SqlClient.SqlClient = db.sql
    const created: Record<string, number> = {}
    const existing: Record<string, number> = {}
    const count = (kind: string, isNew: boolean, n = 1) => {
      if (n === 0) return
      const target = isNew ? created : existing
      target[kind] = (target[kind] ?? 0) + n
    }
    const teams = new Map<string, string>()
    const channels = new Map<string, { id: string; teamId: string; type: string }>()
    const users = new Map<string, string>()
    const touchedChannels = new Set<string>()
    const creators = new Map<string, string>()
    const botUsers = new Map<string, boolean>()
    const botTeams = new Set<string>()
    // Per batch: roots whose threads are rebuilt before the batch commits.
    let threadRoots = new Set<string>()
    let followers: Array<Repo.Follower> = []

    const teamId = (name: string) =>
      Effect.gen(function*() {
        const cached = teams.get(name)
        if (cached !== undefined) return cached
        const [row] = yield* sql`SELECT id FROM teams WHERE name = ${name}`.pipe(Ids)
        teams.set(name, row.id)
        return row.id
      })

    const channel = (team: string, name: string) =>
      Effect.gen(function*() {
        const key = `${team}/${name}`
        const cached = channels.get(key)
        if (cached !== undefined) return cached
        const [row] = yield* sql`
          SELECT c.id, c.team_id, c.type FROM channels c JOIN teams t ON t.id = c.team_id WHERE t.name = ${team} AND c.name = ${name}`.pipe(ChannelTargets)
        const found = { id: row.id, teamId: row.team_id, type: row.type }
        channels.set(key, found)
        return found
      })

    const userId = (username: string) =>
      Effect.gen(function*() {
        const key = username.toLowerCase()
        const cached = users.get(key)
        if (cached !== undefined) return cached
        const [row] = yield* sql`SELECT id FROM users WHERE lower(username) = ${key}`.pipe(Ids)
        users.set(key, row.id)
        return row.id
      })

    /** A recognised hash is kept; another string is a plain password (Mattermost's format), hashed here. */
    const passwordHash = (password: string | null | undefined) => {
      if (password === undefined || password === null || password === "") return Effect.succeed("")
      if (isVerifiableHash(password)) return Effect.succeed(password)
      // An unknown hash format: the user signs in after a password reset.
      if (password.startsWith("$")) return Effect.succeed("")
      return crypto.hashPassword(password)
    }

    /** A new user's profile image, normalised as an upload is; an image that does not decode is left out (counted). */
    const profileImage = (uid: string, name: string, now: number) =>
      Effect.gen(function*() {
        const file = yield* source.open(name)
        if (file.size > MAX_PROFILE_IMAGE_BYTES) return count("profile_image (too large, skipped)", false)
        const chunks = yield* Stream.runCollect(file.stream)
        const normalized = yield* Effect.option(normalizeUpload(Buffer.concat(Chunk.toArray(chunks))))
        if (normalized._tag === "None") return count("profile_image (not an image, skipped)", false)
        yield* store.put(profileImageKey(uid), normalized.value)
        yield* sql`UPDATE users SET last_picture_update = ${now} WHERE id = ${uid}`
        count("profile_image", true)
      })

    const team = (t: Bulk.Team, now: number) =>
      Effect.gen(function*() {
        const [found] = yield* sql`SELECT id FROM teams WHERE name = ${t.name}`.pipe(Ids)
        if (found !== undefined) {
          teams.set(t.name, found.id)
          return count("team", false)
        }
        const row = yield* insertWithDefaultChannels(sql, {
          id: newId(),
          now,
          name: t.name,
          displayName: t.display_name,
          type: t.type,
          description: t.description ?? "",
          companyName: "",
          allowedDomains: "",
          allowOpenInvite: t.allow_open_invite ?? false,
          creatorId: null
        })
        if (row !== undefined) teams.set(t.name, row.team.id)
        count("team", row !== undefined)
      })

    const teamChannel = (c: Bulk.Channel, now: number) =>
      Effect.gen(function*() {
        const tid = yield* teamId(c.team)
        const inserted = yield* sql`
          INSERT INTO channels (id, create_at, update_at, delete_at, team_id, type, display_name, name, header, purpose)
          VALUES (${newId()}, ${now}, ${now}, ${c.deleted_at ?? 0}, ${tid}, ${c.type}, ${c.display_name}, ${c.name},
                  ${c.header ?? ""}, ${c.purpose ?? ""})
          ON CONFLICT (team_id, name) DO NOTHING
          RETURNING id`.pipe(Ids)
        count("channel", inserted.length > 0)
        const found = yield* channel(c.team, c.name)
        touchedChannels.add(found.id)
        // The creator is usually defined by a later line (channels come before users): set at the end.
        if (typeof c.creator === "string" && c.creator !== "") creators.set(found.id, c.creator)
      })

    const member = (
      channelTarget: { id: string; teamId: string; type: string },
      uid: string,
      roles: string | null | undefined,
      state: Partial<Record<"mention_count" | "mention_count_root" | "urgend_mention_count" | "msg_count" | "msg_count_root" | "last_viewed_at", number | null>>,
      notifyProps: Record<string, string>
    ): Repo.MemberInput => ({
      channelId: channelTarget.id,
      teamId: channelTarget.teamId,
      type: channelTarget.type,
      userId: uid,
      admin: has(roles, "channel_admin"),
      guest: has(roles, "channel_guest"),
      notifyProps,
      mentionCount: state.mention_count ?? 0,
      mentionCountRoot: state.mention_count_root ?? 0,
      urgentMentionCount: state.urgend_mention_count ?? 0,
      msgCount: state.msg_count ?? undefined,
      msgCountRoot: state.msg_count_root ?? undefined,
      lastViewedAt: state.last_viewed_at ?? undefined
    })

    /** New members without message counts get them derived once the posts are in (settleReadState). */
    const addMembers = (members: ReadonlyArray<Repo.MemberInput>, now: number) =>
      Effect.gen(function*() {
        const fresh = yield* Repo.addChannelMembers(sql, members, now)
        for (const m of fresh) touchedChannels.add(m.channelId)
        count("channel_member", true, fresh.length)
        count("channel_member", false, members.length - fresh.length)
      })

    const user = (u: Bulk.User, now: number) =>
      Effect.gen(function*() {
        const [found] = yield* sql`
          SELECT id FROM users WHERE lower(username) = lower(${u.username}) OR lower(email) = lower(${u.email})
          ORDER BY (lower(username) = lower(${u.username})) DESC LIMIT 1`.pipe(Ids)
        let uid = found?.id
        if (uid === undefined) {
          uid = newId()
          const sso = (u.auth_service ?? "") !== ""
          const notify = {
            ...DEFAULT_NOTIFY_PROPS,
            ...defined({
              desktop: u.notify_props?.desktop,
              desktop_sound: u.notify_props?.desktop_sound,
              email: u.notify_props?.email,
              push: u.notify_props?.mobile,
              push_status: u.notify_props?.mobile_push_status,
              channel: u.notify_props?.channel,
              comments: u.notify_props?.comments,
              mention_keys: u.notify_props?.mention_keys
            })
          }
          yield* sql`
            INSERT INTO users (id, create_at, update_at, delete_at, username, password, auth_data, auth_service, email,
                               email_verified, nickname, first_name, last_name, position, roles, locale, notify_props,
                               last_password_update)
            VALUES (${uid}, ${now}, ${now}, ${u.delete_at ?? 0}, ${u.username.toLowerCase()},
                    ${sso ? "" : yield* passwordHash(u.password)}, ${sso ? (u.auth_data ?? null) : null},
                    ${sso ? u.auth_service! : ""}, ${u.email.toLowerCase()}, true, ${u.nickname ?? ""}, ${u.first_name ?? ""},
                    ${u.last_name ?? ""}, ${u.position ?? ""}, ${systemRoles(u.roles)}, ${u.locale ?? "en"},
                    ${JSON.stringify(notify)}::jsonb, ${now})`
        }
        users.set(u.username.toLowerCase(), uid)
        count("user", found === undefined)
        if (found === undefined && typeof u.profile_image === "string") yield* profileImage(uid, u.profile_image, now)

        const prefs: Array<Repo.Preference> = []
        for (const [field, category, name] of PREFERENCE_FIELDS) {
          const value = u[field]
          if (typeof value === "string" && value !== "") prefs.push({ userId: uid, category, name, value })
        }
        if (typeof u.tutorial_step === "string") prefs.push({ userId: uid, category: "tutorial_step", name: uid, value: u.tutorial_step })

        for (const t of u.teams ?? []) {
          const tid = yield* teamId(t.name)
          const joined = yield* sql`
            INSERT INTO team_members (team_id, user_id, scheme_admin, scheme_guest, scheme_user, create_at)
            VALUES (${tid}, ${uid}, ${has(t.roles, "team_admin")}, ${has(t.roles, "team_guest")}, ${!has(t.roles, "team_guest")}, ${now})
            ON CONFLICT (team_id, user_id) DO NOTHING
            RETURNING user_id`.pipe(UserIds)
          count("team_member", joined.length > 0)
          if (typeof t.theme === "string" && t.theme !== "") prefs.push({ userId: uid, category: "theme", name: tid, value: t.theme })
          const listed = new Set((t.channels ?? []).map((c) => c.name))
          const members: Array<Repo.MemberInput> = []
          // A new team member joins the team's default channels, as on Mattermost; the file may say more of them.
          if (joined.length > 0) {
            for (const d of DEFAULT_CHANNELS) {
              if (!listed.has(d.name)) members.push(member(yield* channel(t.name, d.name), uid, "", {}, {}))
            }
          }
          for (const c of t.channels ?? []) {
            members.push(member(yield* channel(t.name, c.name), uid, c.roles, c, channelNotifyProps(c.notify_props)))
          }
          yield* addMembers(members, now)
          for (const c of t.channels ?? []) {
            if (c.favorite === true) {
              const target = yield* channel(t.name, c.name)
              yield* Repo.favorite(sql, uid, tid, target.id, now)
              prefs.push({ userId: uid, category: "favorite_channel", name: target.id, value: "true" })
            }
          }
        }
        yield* Repo.addPreferences(sql, prefs)
      })

    /** A bot: a users row with is_bot and its bots row; the owner is a user's id when the name is a user's. */
    const bot = (b: Bulk.Bot, now: number) =>
      Effect.gen(function*() {
        const [found] = yield* sql`SELECT id FROM users WHERE lower(username) = lower(${b.username})`.pipe(Ids)
        count("bot", found === undefined)
        if (found !== undefined) return void users.set(b.username.toLowerCase(), found.id)
        const id = newId()
        const [owner] = yield* sql`SELECT id FROM users WHERE lower(username) = lower(${b.owner})`.pipe(Ids)
        yield* sql`
          INSERT INTO users (id, create_at, update_at, delete_at, username, email, email_verified, first_name, roles, is_bot, notify_props)
          VALUES (${id}, ${now}, ${now}, ${b.delete_at ?? 0}, ${b.username.toLowerCase()}, ${`${b.username.toLowerCase()}@localhost`}, true,
                  ${b.display_name ?? ""}, 'system_user', true, ${JSON.stringify(DEFAULT_NOTIFY_PROPS)}::jsonb)`
        yield* sql`
          INSERT INTO bots (user_id, description, owner_id, create_at, update_at)
          VALUES (${id}, ${b.description ?? ""}, ${owner?.id ?? b.owner}, ${now}, ${now})`
        users.set(b.username.toLowerCase(), id)
        botUsers.set(id, true)
      })

    /**
     * A bot that posts in a team's channel joins that team (bot lines carry no memberships), so that the team's members
     * may see who wrote the posts.
     */
    const joinBotToTeam = (uid: string, teamId: string, now: number) =>
      Effect.gen(function*() {
        if (teamId === "" || botTeams.has(`${teamId}/${uid}`)) return
        let known = botUsers.get(uid)
        if (known === undefined) {
          known = (yield* sql`SELECT is_bot FROM users WHERE id = ${uid}`.pipe(IsBot))[0]?.is_bot === true
          botUsers.set(uid, known)
        }
        if (!known) return
        botTeams.add(`${teamId}/${uid}`)
        yield* sql`
          INSERT INTO team_members (team_id, user_id, create_at) VALUES (${teamId}, ${uid}, ${now})
          ON CONFLICT (team_id, user_id) DO NOTHING`
      })

    /** The direct or group channel of these users, created (with its members) when missing. */
    const directChannels = new Map<string, { id: string; type: string; ids: Array<string>; created: boolean }>()

    /** The channel of a direct post: found once per set of members, then remembered. */
    const directPostChannel = (usernames: ReadonlyArray<string>, now: number) =>
      Effect.gen(function*() {
        const key = [...new Set(usernames.map((n) => n.toLowerCase()))].sort().join(",")
        const known = directChannels.get(key)
        if (known !== undefined) return known
        const made = yield* directChannel(usernames, now)
        directChannels.set(key, made)
        return made
      })

    const directChannel = (usernames: ReadonlyArray<string>, now: number, header = "", participants: ReadonlyArray<Bulk.DirectParticipant> = []) =>
      Effect.gen(function*() {
        const unique = [...new Set(usernames.map((n) => n.toLowerCase()))]
        const ids: Array<string> = []
        for (const name of unique) ids.push(yield* userId(name))
        const type = ids.length <= 2 ? "D" : "G"
        const name = type === "D" ? directName(ids[0], ids[1] ?? ids[0]) : groupName(ids)
        const displayName = type === "D" ? "" : [...unique].sort().join(", ")
        const inserted = yield* sql`
          INSERT INTO channels (id, create_at, update_at, team_id, type, display_name, name, header, creator_id)
          VALUES (${newId()}, ${now}, ${now}, '', ${type}, ${displayName}, ${name}, ${header}, ${ids[0]})
          ON CONFLICT (team_id, name) DO NOTHING
          RETURNING id`.pipe(Ids)
        const id = inserted[0]?.id ?? (yield* sql`SELECT id FROM channels WHERE team_id = '' AND name = ${name}`.pipe(Ids))[0].id
        const target = { id, teamId: "", type }
        const byName = new Map(participants.map((p) => [p.username.toLowerCase(), p]))
        yield* addMembers(
          unique.map((n, i) => {
            const p = byName.get(n)
            return member(target, ids[i], "", p ?? {}, channelNotifyProps(p?.notify_props))
          }),
          now
        )
        touchedChannels.add(id)
        return { id, type, ids, created: inserted.length > 0 }
      })

    const direct = (d: Bulk.DirectChannel, now: number) =>
      Effect.gen(function*() {
        const names = d.participants?.map((p) => p.username) ?? d.members ?? []
        const made = yield* directChannel(names, now, d.header ?? "", d.participants ?? [])
        count("direct_channel", made.created)
        const prefs: Array<Repo.Preference> = []
        for (const name of d.favorited_by ?? []) {
          const uid = yield* userId(name)
          prefs.push({ userId: uid, category: "favorite_channel", name: made.id, value: "true" })
          const memberTeams = yield* sql`SELECT team_id FROM team_members WHERE user_id = ${uid} AND delete_at = 0`.pipe(TeamIds)
          for (const t of memberTeams) yield* Repo.favorite(sql, uid, t.team_id, made.id, now)
        }
        for (const name of d.shown_by ?? []) {
          const uid = yield* userId(name)
          if (made.type === "D") {
            const other = made.ids.find((i) => i !== uid) ?? uid
            prefs.push({ userId: uid, category: "direct_channel_show", name: other, value: "true" })
          } else {
            prefs.push({ userId: uid, category: "group_channel_show", name: made.id, value: "true" })
          }
        }
        yield* Repo.addPreferences(sql, prefs)
      })

    /** Stores the attachments and returns their file ids; the rows are written once the post exists. */
    const storeAttachments = (attachments: ReadonlyArray<Bulk.Attachment>, uid: string, createAt: number) =>
      Effect.forEach(attachments, (a, index) =>
        Effect.gen(function*() {
          const id = newId()
          const name = basename(a.path)
          const key = `uploads/${dayOf(createAt)}/${uid}/${id}/original`
          const file = yield* source.open(a.path)
          const size = yield* store.put(key, file.stream)
          const extension = extensionOf(name)
          // Thumbnail, preview and mini preview as an upload gets them, so an imported picture shows inline.
          const image = yield* imageFields(key, extension)
          return { id, key, name, extension, size, mime: mimeTypeFor(extension), at: createAt + index, image }
        }))

    type Stored = Effect.Effect.Success<ReturnType<typeof storeAttachments>>[number]

    interface Target {
      readonly id: string
      readonly teamId: string
    }
    interface Item {
      readonly p: Bulk.Reply
      readonly userId: string
    }
    /** Post lines of the batch, written together when it ends (flushPosts): a few statements per batch, not per post. */
    let queued: Array<{ readonly p: Bulk.Post | Bulk.DirectPost; readonly target: Target; readonly kind: string }> = []

    const thread = (p: Bulk.Post | Bulk.DirectPost, target: Target, kind: string) =>
      Effect.sync(() => {
        touchedChannels.add(target.id)
        queued.push({ p, target, kind })
      })

    const postKey = (scope: string, userId: string, createAt: number) => `${scope}/${userId}/${createAt}`

    /** New posts' rows, files, reactions and flags, in multi-row statements. */
    const insertPosts = (fresh: ReadonlyArray<{ readonly item: Item; readonly id: string; readonly target: Target; readonly rootId: string }>, now: number) =>
      Effect.gen(function*() {
        const rows: Array<Record<string, unknown>> = []
        const files: Array<{ readonly stored: Stored; readonly userId: string; readonly postId: string; readonly channelId: string }> = []
        const reactions: Array<Repo.ReactionInput> = []
        const flags: Array<Repo.Preference> = []
        for (const { item, id, target, rootId } of fresh) {
          const { p, userId: uid } = item
          yield* joinBotToTeam(uid, target.teamId, now)
          const stored = yield* storeAttachments(p.attachments ?? [], uid, p.create_at)
          for (const f of stored) files.push({ stored: f, userId: uid, postId: id, channelId: target.id })
          rows.push({
            id,
            create_at: p.create_at,
            update_at: Math.max(p.create_at, p.edit_at ?? 0),
            edit_at: p.edit_at ?? 0,
            is_pinned: p.is_pinned ?? false,
            user_id: uid,
            channel_id: target.id,
            root_id: rootId,
            message: p.message,
            type: p.type ?? "",
            props: JSON.stringify(p.props ?? {}),
            hashtags: hashtags(p.message),
            file_ids: JSON.stringify(stored.map((f) => f.id))
          })
          for (const r of p.reactions ?? []) {
            reactions.push({ postId: id, channelId: target.id, userId: yield* userId(r.user), emojiName: r.emoji_name, createAt: r.create_at })
          }
          for (const f of p.flagged_by ?? []) flags.push({ userId: yield* userId(f), category: "flagged_post", name: id, value: "true" })
        }
        // Bounded statements: PostgreSQL takes at most 65,535 parameters.
        for (let i = 0; i < rows.length; i += 1000) yield* sql`INSERT INTO posts ${sql.insert(rows.slice(i, i + 1000))}`
        for (let i = 0; i < files.length; i += 1000) {
          yield* sql`INSERT INTO file_infos ${sql.insert(files.slice(i, i + 1000).map(({ stored: f, userId: uid, postId, channelId }) => ({
            id: f.id,
            creator_id: uid,
            post_id: postId,
            channel_id: channelId,
            create_at: f.at,
            update_at: f.at,
            path: f.key,
            name: f.name,
            extension: f.extension,
            size: f.size,
            mime_type: f.mime,
            ...f.image,
            mini_preview: f.image.mini_preview === null ? null : Buffer.from(f.image.mini_preview)
          })))}`
        }
        count("attachment", true, files.length)
        for (let i = 0; i < reactions.length; i += 5000) count("reaction", true, yield* Repo.addReactions(sql, reactions.slice(i, i + 5000)))
        for (let i = 0; i < flags.length; i += 5000) yield* Repo.addPreferences(sql, flags.slice(i, i + 5000))
        count("flag", true, flags.length)
      })

    /**
     * Writes the batch's posts: which roots exist already (one query), which replies of those exist (one query), then
     * the new roots and replies with their files, reactions and flags in a few multi-row statements.
     */
    const flushPosts = (now: number) =>
      Effect.gen(function*() {
        if (queued.length === 0) return
        const batch = queued
        queued = []
        const roots: Array<{ root: Item; key: string; replies: Array<Item>; target: Target; kind: string; line: Bulk.Post | Bulk.DirectPost }> = []
        for (const { p, target, kind } of batch) {
          const uid = yield* userId(p.user)
          const replies: Array<Item> = []
          for (const r of p.replies ?? []) replies.push({ p: r, userId: yield* userId(r.user) })
          roots.push({ root: { p, userId: uid }, key: postKey(target.id, uid, p.create_at), replies, target, kind, line: p })
        }
        const found = yield* sql`
          SELECT p.id, p.channel_id, p.user_id, p.create_at FROM posts p
          JOIN unnest(${roots.map((r) => r.target.id)}::text[], ${roots.map((r) => r.root.userId)}::text[],
                      ${roots.map((r) => r.root.p.create_at)}::bigint[]) AS k(channel_id, user_id, create_at)
            ON p.channel_id = k.channel_id AND p.create_at = k.create_at AND p.user_id = k.user_id
          WHERE p.root_id = ''`.pipe(PostRefs)
        const rootIds = new Map(found.map((r) => [postKey(r.channel_id, r.user_id, Number(r.create_at)), r.id]))
        const existingRoots = [...new Set(found.map((r) => r.id))]
        // root_id <> '' lets the planner use the partial index on replies (posts_root_create_idx), see refreshThreads.
        const foundReplies = existingRoots.length === 0 ? [] : yield* sql`
          SELECT root_id, user_id, create_at FROM posts WHERE root_id = ${anyText(sql, existingRoots)} AND root_id <> ''`.pipe(Replies)
        const replyKeys = new Set(foundReplies.map((r) => postKey(r.root_id, r.user_id, Number(r.create_at))))

        const fresh: Array<{ item: Item; id: string; target: Target; rootId: string }> = []
        for (const r of roots) {
          const known = rootIds.get(r.key)
          const rootId = known ?? newId()
          count(r.kind, known === undefined)
          if (known === undefined) {
            // A later line of the batch with the same key is the same post.
            rootIds.set(r.key, rootId)
            fresh.push({ item: r.root, id: rootId, target: r.target, rootId: "" })
          }
          let added = 0
          for (const reply of r.replies) {
            const key = postKey(rootId, reply.userId, reply.p.create_at)
            count("reply", !replyKeys.has(key))
            if (replyKeys.has(key)) continue
            replyKeys.add(key)
            fresh.push({ item: reply, id: newId(), target: r.target, rootId })
            added += 1
          }
          if (added > 0) threadRoots.add(rootId)
          for (const f of r.line.thread_followers ?? []) {
            followers.push({ rootId, userId: yield* userId(f.user), lastViewed: f.last_viewed ?? 0, unreadMentions: f.unread_mentions ?? 0 })
          }
        }
        yield* insertPosts(fresh, now)
      })

    const emoji = (e: Bulk.Emoji, now: number) =>
      Effect.gen(function*() {
        const [found] = yield* sql`SELECT id FROM emoji WHERE name = ${e.name} AND delete_at = 0`.pipe(Ids)
        count("emoji", found === undefined)
        if (found !== undefined) return
        const id = newId()
        const image = yield* source.open(e.image)
        yield* store.put(imageKey(id), image.stream)
        yield* sql`INSERT INTO emoji (id, create_at, update_at, creator_id, name) VALUES (${id}, ${now}, ${now}, '', ${e.name})`
      })

    const line = (data: Bulk.Line, now: number) => {
      switch (data.type) {
        case "team":
          return team(data.team, now)
        case "channel":
          return teamChannel(data.channel, now)
        case "user":
          return user(data.user, now)
        case "bot":
          return bot(data.bot, now)
        case "post":
          return Effect.flatMap(channel(data.post.team, data.post.channel), (c) => thread(data.post, c, "post"))
        case "direct_channel":
          return direct(data.direct_channel, now)
        case "direct_post":
          return Effect.flatMap(directPostChannel(data.direct_post.channel_members, now), (c) => thread(data.direct_post, { id: c.id, teamId: "" }, "direct_post"))
        case "emoji":
          return emoji(data.emoji, now)
        case "scheme":
        case "role":
          return Effect.sync(() => count(`${data.type} (skipped)`, false))
        default:
          return Effect.void
      }
    }

    /** Writes the batch's posts and rebuilds the threads it touched, inside its transaction. */
    const endBatch = (now: number) =>
      Effect.zipRight(flushPosts(now), Effect.suspend(() => {
        const roots = [...threadRoots]
        const f = followers
        threadRoots = new Set()
        followers = []
        return Repo.refreshThreads(sql, roots, f)
      }))

    /**
     * Channel counters and read state from the imported posts, in statements of bounded size. Members are settled
     * wherever they were marked, so a run after one that stopped part-way settles that one's members too.
     */
    const finish = Effect.gen(function*() {
      const ids = [...touchedChannels]
      for (let i = 0; i < ids.length; i += 500) yield* db.transaction(Repo.refreshChannels(sql, ids.slice(i, i + 500)))
      // Only a channel without a creator gets one: a channel that was there before the import keeps its own.
      for (const [channelId, username] of creators) {
        yield* sql`
          UPDATE channels SET creator_id = u.id FROM users u
          WHERE channels.id = ${channelId} AND channels.creator_id = '' AND lower(u.username) = lower(${username})`
      }
      yield* Repo.settleReadState(sql)
    })

    return { line, endBatch, finish, created, existing }
  })


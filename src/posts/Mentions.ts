import { Effect, Schema } from "effect"
import type { DbError, DbService } from "../../layers/Db.ts"
import { rows } from "../../layers/Rows.ts"
import { anyText } from "../../layers/SqlArrays.ts"
import type { ChannelRef } from "../access/Access.ts"
import { mentionTokens } from "./MessageText.ts"

/**
 * Who a post mentions, as Mattermost decides it: in a DM the other member, in a GM every other member; elsewhere
 * `@username` of members, and `@channel`/`@all` for members who allow channel mentions (user notify prop `channel`,
 * not ignored for the channel), `@here` only for those of them whose status is online (the statuses table is the
 * presence signal). The author is never mentioned. Named users who are not members come back as `notInChannel`.
 */
export interface MentionResult {
  readonly mentioned: ReadonlyArray<string>
  /** Mentioned by the root post of a reply: they follow the thread but gain no unread mention. */
  readonly rootMentioned: ReadonlyArray<string>
  /** Whether the root author is a member (followers of a reply include them). */
  readonly rootAuthorIsMember: boolean
  readonly notInChannel: ReadonlyArray<{ readonly id: string; readonly username: string }>
}

const MemberRow = Schema.Struct({
  user_id: Schema.String,
  username: Schema.String,
  channel_notify: Schema.NullOr(Schema.String),
  ignore_channel: Schema.NullOr(Schema.String),
  mark_unread: Schema.NullOr(Schema.String),
  status: Schema.String
})
type MemberRow = typeof MemberRow.Type
// Decoded after db.read, which runs a plain statement straight on the pool (POST /posts reads these).
const Members = rows("Mentions members", MemberRow)
const NotInChannel = rows("Mentions notInChannel", Schema.Struct({ id: Schema.String, username: Schema.String }))

const allowsChannelMentions = (m: MemberRow) =>
  m.channel_notify !== "false" && m.ignore_channel !== "on" && !(m.mark_unread === "mention" && (m.ignore_channel ?? "default") === "default")

const resolve = (members: ReadonlyArray<MemberRow>, message: string, authorId: string, channelMentions: boolean) => {
  const found = mentionTokens(message)
  const tokens = channelMentions ? found : { ...found, channel: false, all: false, here: false }
  const ids = new Set<string>()
  for (const m of members) {
    if (m.user_id === authorId) continue
    if (tokens.usernames.has(m.username.toLowerCase())) ids.add(m.user_id)
    else if ((tokens.channel || tokens.all) && allowsChannelMentions(m)) ids.add(m.user_id)
    else if (tokens.here && m.status === "online" && allowsChannelMentions(m)) ids.add(m.user_id)
  }
  return { ids, tokens }
}

export const findMentions = (
  db: DbService,
  input: {
    readonly channel: ChannelRef
    readonly authorId: string
    readonly message: string
    readonly root?: { readonly userId: string; readonly message: string }
    /** Whether the author holds use_channel_mentions here: without it @channel, @all and @here notify nobody. */
    readonly channelMentions?: boolean
  }
): Effect.Effect<MentionResult, DbError> =>
  Effect.gen(function*() {
    const sql = db.sql
    const direct = input.channel.type === "D" || input.channel.type === "G"
    const texts = input.root === undefined ? [input.message] : [input.message, input.root.message]
    const tokenSets = texts.map(mentionTokens)
    const channelMentions = input.channelMentions ?? true
    const channelWide = channelMentions && tokenSets.some((t) => t.channel || t.all || t.here)
    const names = [...new Set(tokenSets.flatMap((t) => [...t.usernames]))]
    const rootAuthor = input.root?.userId ?? ""
    if (!direct && !channelWide && names.length === 0 && rootAuthor === "") {
      return { mentioned: [], rootMentioned: [], rootAuthorIsMember: false, notInChannel: [] }
    }
    // Everybody is needed only for a direct or group message and a channel-wide mention. Otherwise the named users
    // and the root's author are looked up by key, each then by their membership: the statement that filtered every
    // member of the channel by name read the whole membership (1.4-1.5 ms for a reply in a channel of 500 members).
    const columns = sql`u.username, u.notify_props->>'channel' AS channel_notify,
             cm.notify_props->>'ignore_channel_mentions' AS ignore_channel, cm.notify_props->>'mark_unread' AS mark_unread,
             COALESCE(s.status, 'offline') AS status`
    const members = direct || channelWide
      ? yield* db.read(sql`
          SELECT cm.user_id, ${columns}
          FROM channel_members cm
          JOIN users u ON u.id = cm.user_id AND u.delete_at = 0
          LEFT JOIN statuses s ON s.user_id = cm.user_id
          WHERE cm.channel_id = ${input.channel.id}`).pipe(Members)
      : yield* db.read(sql`
          WITH wanted AS (
            SELECT id FROM users WHERE lower(username) = ${anyText(sql, names)}
            UNION
            SELECT ${rootAuthor}::text
          )
          SELECT cm.user_id, ${columns}
          FROM wanted w
          JOIN channel_members cm ON cm.channel_id = ${input.channel.id} AND cm.user_id = w.id
          JOIN users u ON u.id = w.id AND u.delete_at = 0
          LEFT JOIN statuses s ON s.user_id = w.id`).pipe(Members)
    const rootAuthorIsMember = members.some((m) => m.user_id === rootAuthor)
    if (direct) {
      const others = members.filter((m) => m.user_id !== input.authorId).map((m) => m.user_id)
      return { mentioned: others, rootMentioned: [], rootAuthorIsMember, notInChannel: [] }
    }
    const own = resolve(members, input.message, input.authorId, channelMentions)
    const fromRoot = input.root === undefined ? new Set<string>() : resolve(members, input.root.message, input.authorId, channelMentions).ids
    const memberNames = new Set(members.map((m) => m.username.toLowerCase()))
    const missing = [...own.tokens.usernames].filter((n) => !memberNames.has(n))
    const notInChannel = missing.length === 0 || input.channel.team_id === ""
      ? []
      : yield* db.read(sql`
          SELECT u.id, u.username FROM users u
          JOIN team_members tm ON tm.user_id = u.id AND tm.team_id = ${input.channel.team_id} AND tm.delete_at = 0
          WHERE lower(u.username) = ${anyText(sql, missing)} AND u.delete_at = 0 AND u.id <> ${input.authorId}`).pipe(NotInChannel)
    return {
      mentioned: [...own.ids],
      rootMentioned: [...fromRoot].filter((id) => !own.ids.has(id)),
      rootAuthorIsMember,
      notInChannel
    }
  })

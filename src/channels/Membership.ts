import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { rows } from "../../layers/Rows.ts"
import * as Sidebar from "../categories/Sidebar.ts"
import { DEFAULT_CHANNEL_NOTIFY_PROPS } from "./ChannelWire.ts"
import { anyText } from "../../layers/SqlArrays.ts"

const Inserted = rows("Membership add", Schema.Struct({ channel_id: Schema.String, user_id: Schema.String }))
const ChannelIds = rows("Membership remove", Schema.Struct({ channel_id: Schema.String }))

/** Channel membership writes shared by channel creation, joins and team joins; run inside the caller's transaction. */

export interface ChannelTarget {
  readonly id: string
  readonly team_id: string
  readonly type: string
}

export interface NewMember {
  readonly channel: ChannelTarget
  readonly userId: string
  readonly admin: boolean
}

/** Adds the members that are not members yet and files the channels in their sidebars; returns who was added. */
export const add = (sql: SqlClient.SqlClient, members: ReadonlyArray<NewMember>, now: number) =>
  Effect.gen(function*() {
    if (members.length === 0) return [] as ReadonlyArray<NewMember>
    const inserted = yield* sql`
      INSERT INTO channel_members (channel_id, user_id, scheme_admin, notify_props, last_update_at)
      SELECT e.channel_id, e.user_id, e.admin, ${JSON.stringify(DEFAULT_CHANNEL_NOTIFY_PROPS)}::jsonb, ${now}
      FROM unnest(${members.map((m) => m.channel.id)}::text[], ${members.map((m) => m.userId)}::text[],
                  ${members.map((m) => m.admin)}::boolean[]) AS e(channel_id, user_id, admin)
      ON CONFLICT DO NOTHING
      RETURNING channel_id, user_id`.pipe(Inserted)
    const added = new Set(inserted.map((r) => `${r.channel_id}/${r.user_id}`))
    const fresh = members.filter((m) => added.has(`${m.channel.id}/${m.userId}`))
    yield* Sidebar.place(
      sql,
      fresh.map((m) => ({ userId: m.userId, channelId: m.channel.id, teamId: m.channel.team_id, type: m.channel.type })),
      now
    )
    return fresh
  })

/** Removes one user from channels and from the sidebar; returns the channels actually left. */
export const remove = (sql: SqlClient.SqlClient, userId: string, channelIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    if (channelIds.length === 0) return [] as ReadonlyArray<string>
    const rows = yield* sql`
      DELETE FROM channel_members WHERE user_id = ${userId} AND channel_id = ${anyText(sql, channelIds)}
      RETURNING channel_id`.pipe(ChannelIds)
    yield* Sidebar.forget(sql, userId, rows.map((r) => r.channel_id))
    return rows.map((r) => r.channel_id)
  })

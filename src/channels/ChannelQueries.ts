import { Effect } from "effect"
import { Db } from "../../layers/Db.ts"
import { notFound } from "../http/ApiError.ts"
import type { ChannelMemberRow, ChannelRow } from "./ChannelWire.ts"

/** Reads shared by the channel routes (after the Access check). */

export const channelById = (channelId: string) =>
  Effect.gen(function*() {
    const db = yield* Db
    const [row] = yield* db.read(db.sql<ChannelRow>`SELECT * FROM channels WHERE id = ${channelId}`)
    if (row === undefined) return yield* notFound("app.channel.get.existing.app_error", "Channel not found.")
    return row
  })

export const membersOf = (channelId: string, userIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    if (userIds.length === 0) return [] as ReadonlyArray<ChannelMemberRow>
    const db = yield* Db
    const sql = db.sql
    return yield* db.read(sql<ChannelMemberRow>`
      SELECT * FROM channel_members WHERE channel_id = ${channelId} AND user_id IN ${sql.in(userIds)}`)
  })

export const memberMissing = () =>
  notFound("app.channel.get_member.missing.app_error", "No channel member found for that user ID and channel ID.")

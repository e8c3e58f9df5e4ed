import { Schema } from "effect"

/**
 * The ServerLimits of @mattermost/types as `GET /limits/server` sends it: no user limit here (0, as an unlicensed
 * Mattermost without one sends), and no post history limit, so the optional fields of those are left out.
 */
export const ServerLimits = Schema.Struct({
  activeUserCount: Schema.Number,
  maxUsersLimit: Schema.Number,
  maxUsersHardLimit: Schema.Number
})
export type ServerLimits = typeof ServerLimits.Type

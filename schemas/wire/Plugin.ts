import { Schema } from "effect"

/** The PluginManifest of @mattermost/types, with the fields the built-in Calls surface has (src/calls/CallWire.ts). */
export const PluginManifest = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: Schema.String,
  version: Schema.String,
  min_server_version: Schema.String,
  webapp: Schema.Struct({ bundle_path: Schema.String })
})
export type PluginManifest = typeof PluginManifest.Type

/** The PluginsResponse of @mattermost/types: `GET /plugins`. */
export const PluginsResponse = Schema.Struct({ active: Schema.Array(PluginManifest), inactive: Schema.Array(PluginManifest) })
export type PluginsResponse = typeof PluginsResponse.Type

/** The PluginStatus of @mattermost/types: `GET /plugins/statuses`. */
export const PluginStatus = Schema.Struct({
  plugin_id: Schema.String,
  cluster_id: Schema.String,
  plugin_path: Schema.String,
  state: Schema.Number,
  name: Schema.String,
  description: Schema.String,
  version: Schema.String
})
export type PluginStatus = typeof PluginStatus.Type

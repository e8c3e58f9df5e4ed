import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { PluginManifest, PluginsResponse, PluginStatus } from "../../schemas/wire/Plugin.ts"
import { authed } from "../auth/Guards.ts"
import { callsManifest } from "../calls/CallWire.ts"
import { respondWith, respondWithAll } from "../http/Respond.ts"

/**
 * Plugins as the clients see them: the only "plugin" is the built-in Calls surface (ringing only), which the apps
 * discover through plugins/webapp. Installing, enabling and uploading plugins is not supported.
 */
const PLUGIN_RUNNING = 2

const webapp = respondWithAll(PluginManifest, [callsManifest])

const statuses = respondWithAll(PluginStatus, [{
  plugin_id: callsManifest.id,
  cluster_id: "",
  plugin_path: "",
  state: PLUGIN_RUNNING,
  name: callsManifest.name,
  description: callsManifest.description,
  version: callsManifest.version
}])

const list = respondWith(PluginsResponse, { active: [callsManifest], inactive: [] })

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/plugins", authed.admin(list)),
  HttpRouter.get("/api/v4/plugins/webapp", authed(webapp)),
  HttpRouter.get("/api/v4/plugins/statuses", authed.admin(statuses))
)

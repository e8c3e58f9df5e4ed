import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { requireCaller, requireSystemAdmin } from "../auth/Authenticate.ts"
import { callsManifest } from "../calls/CallWire.ts"
import { json } from "../http/Respond.ts"

/**
 * Plugins as the clients see them: the only "plugin" is the built-in Calls surface (ringing only), which the apps
 * discover through plugins/webapp. Installing, enabling and uploading plugins is not supported.
 */
const PLUGIN_RUNNING = 2

const webapp = Effect.as(requireCaller, json([callsManifest]))

const statuses = Effect.as(requireSystemAdmin, json([{
  plugin_id: callsManifest.id,
  cluster_id: "",
  plugin_path: "",
  state: PLUGIN_RUNNING,
  name: callsManifest.name,
  description: callsManifest.description,
  version: callsManifest.version
}]))

const list = Effect.as(requireSystemAdmin, json({ active: [callsManifest], inactive: [] }))

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/plugins", list),
  HttpRouter.get("/api/v4/plugins/webapp", webapp),
  HttpRouter.get("/api/v4/plugins/statuses", statuses)
)

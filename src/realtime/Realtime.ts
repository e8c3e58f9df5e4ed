import { Layer } from "effect"
import * as Presence from "../status/Presence.ts"
import * as Statuses from "../status/Statuses.ts"
import * as Hub from "./Hub.ts"
import * as HubStats from "./LiveStats.ts"

/** The realtime services: the hub with presence and statuses under it, and the live stats it feeds. */
export const layer = HubStats.layer.pipe(
  Layer.provideMerge(Hub.layer),
  Layer.provideMerge(Layer.mergeAll(Presence.layer, Statuses.layer))
)

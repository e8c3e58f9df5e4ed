import { Layer } from "effect"
import * as Presence from "../status/Presence.ts"
import * as Statuses from "../status/Statuses.ts"
import * as Hub from "./Hub.ts"
import * as HubStats from "./LiveStats.ts"
import * as SocketServer from "./SocketServer.ts"

/** The realtime services: the hub with presence and statuses under it, the sockets and the live stats it feeds. */
export const layer = Layer.merge(HubStats.layer, SocketServer.layer).pipe(
  Layer.provideMerge(Hub.layer),
  Layer.provideMerge(Layer.mergeAll(Presence.layer, Statuses.layer))
)

import { HttpRouter } from "@effect/platform"
import * as ChannelMembers from "./ChannelMemberRoutes.ts"
import * as Channels from "./ChannelRoutes.ts"
import * as GroupSearch from "./GroupSearchRoutes.ts"
import * as MoveChannel from "./MoveChannelRoutes.ts"
import * as MyChannels from "./MyChannelRoutes.ts"
import * as AllChannelsSearch from "./AllChannelsSearchRoutes.ts"
import * as TeamChannels from "./TeamChannelRoutes.ts"

/** Every /api/v4 channel path. */
export const routes = HttpRouter.concatAll(Channels.routes, ChannelMembers.routes, MyChannels.routes, TeamChannels.routes, GroupSearch.routes, AllChannelsSearch.routes, MoveChannel.routes)

import { HttpRouter } from "@effect/platform"
import * as Acks from "./AckRoutes.ts"
import * as Lists from "./ListRoutes.ts"
import * as History from "./PostHistoryRoutes.ts"
import * as Posts from "./PostRoutes.ts"
import * as SetUnread from "./SetUnreadRoutes.ts"

/** Every posts route: single posts, lists, marking unread, acknowledgements, edit history and permalink info. */
export const routes = HttpRouter.concatAll(Posts.routes, Lists.routes, SetUnread.routes, Acks.routes, History.routes)

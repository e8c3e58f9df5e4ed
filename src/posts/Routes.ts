import { HttpRouter } from "@effect/platform"
import * as Lists from "./ListRoutes.ts"
import * as Posts from "./PostRoutes.ts"
import * as SetUnread from "./SetUnreadRoutes.ts"

/** Every posts route: single posts, lists, and marking unread. */
export const routes = HttpRouter.concatAll(Posts.routes, Lists.routes, SetUnread.routes)

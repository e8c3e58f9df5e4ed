import { HttpRouter } from "@effect/platform"
import * as Admin from "./AdminRoutes.ts"
import * as Mobile from "./MobileRoutes.ts"
import * as Public from "./PublicRoutes.ts"

/** Every SSO path: the admin API, the public flow and the official mobile app's SSO. */
export const routes = HttpRouter.concatAll(Admin.routes, Public.routes, Mobile.routes)

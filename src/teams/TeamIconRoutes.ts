import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { FileStore } from "../../layers/FileStore.ts"
import { authed, CurrentCaller } from "../auth/Guards.ts"
import { EventBus } from "../events/EventBus.ts"
import { uploadedSquarePng } from "../files/ImageUpload.ts"
import { notFound } from "../http/ApiError.ts"
import * as Decode from "../http/Decode.ts"
import { ok } from "../http/Respond.ts"
import * as TeamEvents from "./TeamEvents.ts"
import { TeamParams } from "../../schemas/Params.ts"
import { administeredTeamId, readableTeam } from "./TeamRoutes.ts"
import * as TeamRepo from "./TeamRepo.ts"

/**
 * A team's icon: GET /teams/{id}/image for whoever may see the team, POST (multipart `image`) and DELETE for its
 * admins. The upload is checked and made a square PNG as profile pictures are; last_team_icon_update tells clients
 * to refetch (0 when there is none), and `update_team` carries it to the team's members.
 */
const iconKey = (teamId: string) => `teams/${teamId}/teamIcon.png`

const noIcon = () => notFound("api.team.get_team_icon.read_file.app_error", "Unable to read the team icon file.")

const imageErrors = {
  prefix: "api.team.set_team_icon",
  tooManyPixels: "api.team.set_team_icon.check_image_limits.app_error",
  what: "upload the team icon"
}

const getIcon = Effect.gen(function*() {
  const caller = yield* CurrentCaller
  const { team_id } = yield* Decode.params(TeamParams)
  const team = yield* readableTeam(caller, "id", team_id)
  if (Number(team.row.last_team_icon_update) <= 0) return yield* noIcon()
  const stored = yield* (yield* FileStore).get(iconKey(team_id)).pipe(Effect.option)
  if (Option.isNone(stored)) return yield* noIcon()
  return HttpServerResponse.uint8Array(stored.value, { contentType: "image/png", headers: { "cache-control": "private, max-age=86400" } })
})

/** Records that the team now has an icon (its time is now) or has none (0), and tells the members. */
const setIconTime = (teamId: string, hasIcon: boolean) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const updated = yield* TeamRepo.setIconTime(teamId, hasIcon ? now : 0, now)
    if (Option.isSome(updated)) yield* TeamEvents.updated(yield* EventBus, updated.value)
  })

const uploadIcon = Effect.gen(function*() {
  const teamId = yield* administeredTeamId
  const png = yield* uploadedSquarePng(imageErrors)
  yield* (yield* FileStore).put(iconKey(teamId), png)
  yield* setIconTime(teamId, true)
  return ok()
})

const removeIcon = Effect.gen(function*() {
  const teamId = yield* administeredTeamId
  yield* setIconTime(teamId, false)
  yield* (yield* FileStore).delete(iconKey(teamId)).pipe(Effect.ignore)
  return ok()
})

export const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v4/teams/:team_id/image", authed(getIcon)),
  HttpRouter.post("/api/v4/teams/:team_id/image", authed(uploadIcon)),
  HttpRouter.del("/api/v4/teams/:team_id/image", authed(removeIcon))
)

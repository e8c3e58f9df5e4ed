import { describe, expect, it } from "vitest"
import {
  Conflict,
  Disabled,
  Forbidden,
  IntegrationFailed,
  IntegrationTimeout,
  Invalid,
  invalidParam,
  NotFound,
  TooLarge,
  Unauthenticated,
  Unavailable
} from "../../schemas/Errors.ts"
import { render, toApiError } from "../../src/http/ErrorResponse.ts"

/** The JSON text `json()` put in a response. */
const bodyOf = (response: ReturnType<typeof render>): unknown => JSON.parse(String((response.body as { readonly body: unknown }).body))

/** The one table from domain errors to answers: status from the tag, Mattermost's id and message kept as given. */
describe("domain errors at the edge", () => {
  const cases = [
    [new Invalid({ id: "a.invalid", message: "bad" }), 400, "BAD_REQUEST"],
    [new Unauthenticated({ id: "a.unverified", message: "who" }), 401, "UNAUTHORIZED"],
    [new Forbidden({ id: "a.forbidden", message: "no" }), 403, "FORBIDDEN"],
    [new NotFound({ id: "a.missing", message: "gone" }), 404, "NOT_FOUND"],
    [new Conflict({ id: "a.taken", message: "taken" }), 409, "CONFLICT"],
    [new TooLarge({ id: "a.big", message: "big" }), 413, "PAYLOAD_TOO_LARGE"],
    [new Unavailable({ id: "a.down", message: "down" }), 503, "SERVICE_UNAVAILABLE"],
    [new Disabled({ id: "a.off", message: "off" }), 501, "NOT_IMPLEMENTED"],
    [new IntegrationFailed({ id: "a.integration", message: "failed" }), 502, "BAD_GATEWAY"],
    [new IntegrationTimeout({ id: "a.slow", message: "slow" }), 504, "GATEWAY_TIMEOUT"]
  ] as const

  it.each(cases)("%s answers its status with the Mattermost body on /api/v4 and the native one on /api/v1", async (error, status, code) => {
    const api = toApiError(error)
    expect(api).toMatchObject({ status, id: error.id, message: error.message })
    const v4 = render(api, "/api/v4/teams", "req1")
    expect(v4.status).toBe(status)
    expect(bodyOf(v4)).toEqual({
      id: error.id,
      message: error.message,
      detailed_error: "",
      request_id: "req1",
      status_code: status
    })
    const v1 = render(api, "/api/v1/things", "req2")
    expect(bodyOf(v1)).toEqual({
      error: { code, id: error.id, message: error.message, request_id: "req2", status }
    })
  })

  it("keeps Mattermost's invalid_param wording and names the field", () => {
    const error = invalidParam("channel_id")
    expect(error.field).toBe("channel_id")
    expect(toApiError(error)).toMatchObject({
      status: 400,
      id: "api.context.invalid_param.app_error",
      message: "Invalid or missing channel_id parameter in request URL or body."
    })
  })
})

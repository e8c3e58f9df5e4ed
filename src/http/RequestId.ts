import { Context } from "effect"

/** The id of the request being served: the X-Request-Id header and `request_id` of error bodies. */
export class RequestId extends Context.Tag("service/RequestId")<RequestId, string>() {}

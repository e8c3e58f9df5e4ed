import { ReplyError } from "ioredis"

/**
 * Which Redis failures count toward the cache's and the bus's breakers: a connection that is down or closed, and a
 * command that got no answer in time. An error reply (WRONGTYPE, a script error, a value Redis will not take) means
 * Redis answered: that command failed alone, is not retried, and never opens the breaker for everybody else. The
 * replies a Redis that cannot serve anyone sends (still loading its data set, busy with a script, a replica without
 * its primary) do count.
 */
const UNAVAILABLE_REPLY = /^(LOADING|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN)\b/

export const isRedisUnavailable = (error: { readonly cause: unknown }): boolean => {
  const cause = error.cause
  if (cause instanceof ReplyError || (cause as { name?: unknown } | null)?.name === "ReplyError") {
    return UNAVAILABLE_REPLY.test(String((cause as { message?: unknown }).message ?? ""))
  }
  return true
}

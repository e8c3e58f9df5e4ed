import { Data, Duration, Effect, Layer, Metric, Option, Queue, Schedule, Runtime, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { OutboundHttp, type OutboundError } from "../../layers/OutboundHttp.ts"
import type { EventPost } from "../../schemas/Events.ts"
import { OutgoingAnswer, type OutgoingPayload, TRIGGER_EXACT } from "../../schemas/OutgoingWebhook.ts"
import { EventBus, type LocalEnvelope } from "../events/EventBus.ts"
import { integrationSwitches } from "../integrations/IntegrationSettings.ts"
import { makeIncomingRepo } from "./IncomingRepo.ts"
import { OutgoingHookCache } from "./OutgoingHookCache.ts"
import { makeOutgoingRepo, type OutgoingRow } from "./OutgoingRepo.ts"
import { postAsWebhook } from "./WebhookPost.ts"

/**
 * Firing outgoing webhooks. The node that created a post sees its own `posted` event (as push notifications do) and
 * hands it to a bounded queue: the post's request has already been answered, and a slow or dead receiver only ever
 * holds one of the workers. A full queue drops (and logs) rather than holding memory or the event bus. A worker finds
 * the hooks watching the channel (in memory, OutgoingHookCache), POSTs Mattermost's payload to each callback URL through OutboundHttp (the SSRF
 * guard), retries what certainly did not reach the receiver, and posts an answer that has text or attachments.
 */

export const QUEUE_SIZE = 1000
const WORKERS = 8
export const CALLBACK_TIMEOUT = Duration.seconds(10)
/** 250 ms, 500 ms, 1 s: a receiver restarting or briefly overloaded gets its call. */
export const RETRY = Schedule.exponential("250 millis").pipe(Schedule.intersect(Schedule.recurs(3)))

/** Calls to callback URLs by outcome: `posted` (an answer was posted), `delivered` (nothing to post), `failed`. */
export const callsTotal = Metric.counter("service_outgoing_webhook_calls_total", { description: "Outgoing webhook callback calls, by outcome", incremental: true })
/** Posts not sent to their hooks because the queue was full. */
export const droppedTotal = Metric.counter("service_outgoing_webhook_dropped_total", { description: "Posts not sent to outgoing webhooks: queue full", incremental: true })
const counted = (outcome: "posted" | "delivered" | "failed") => Metric.increment(Metric.tagged(callsTotal, "outcome", outcome))

interface Fired {
  readonly post: EventPost
  readonly teamId: string
  readonly channelName: string
  readonly userName: string
}

/**
 * Posts a user (or a bot) made in a public channel. Not a webhook's own posts (an answer would trigger again), nor
 * system messages, as Mattermost.
 */
const firedBy = ({ domain: event }: LocalEnvelope): Fired | undefined => {
  // This node's own typed event: the post object as written, no JSON to parse.
  if (event?._tag !== "Posted" || event.channel.type !== "O") return undefined
  const post = event.post
  if (post.type.startsWith("system_") || post.props.from_webhook === "true") return undefined
  return { post, teamId: event.channel.team_id, channelName: event.channel.name, userName: event.senderName }
}

/**
 * The trigger word a post's message fires a hook with ("" for a channel hook without words, which takes every post),
 * or none: trigger_when 0 wants the first word to be a trigger word, 1 to start with one.
 */
export const triggerWord = (hook: Pick<OutgoingRow, "channel_id" | "trigger_words" | "trigger_when">, channelId: string, message: string) => {
  if (hook.channel_id !== "" && hook.channel_id !== channelId) return undefined
  if (hook.channel_id === channelId && hook.trigger_words.length === 0) return ""
  const first = message.trim().split(/\s+/)[0] ?? ""
  if (first === "") return undefined
  return hook.trigger_when === TRIGGER_EXACT
    ? hook.trigger_words.find((w) => w === first)
    : hook.trigger_words.find((w) => first.startsWith(w))
}

/** The form Mattermost sends: timestamp in seconds there (milliseconds in JSON). */
export const formBody = (p: OutgoingPayload) =>
  new URLSearchParams({
    token: p.token,
    team_id: p.team_id,
    team_domain: p.team_domain,
    channel_id: p.channel_id,
    channel_name: p.channel_name,
    timestamp: String(Math.floor(p.timestamp / 1000)),
    user_id: p.user_id,
    user_name: p.user_name,
    post_id: p.post_id,
    text: p.text,
    trigger_word: p.trigger_word,
    file_ids: p.file_ids
  }).toString()

/** An answer worth another try: the receiver said so (429, 502-504) or was not reached at all. */
class Transient extends Data.TaggedError("Transient")<{ readonly reason: string }> {}

const retryable = (e: OutboundError) => e._tag === "OutboundUnreachable"

const call = (url: string, contentType: string, body: string) =>
  Effect.flatMap(OutboundHttp, (http) =>
    http.request({ url, method: "POST", headers: { "content-type": contentType, accept: "application/json" }, body, timeout: CALLBACK_TIMEOUT }).pipe(
      // A timeout is not retried: the receiver may have acted on the call, and a second answer would post twice.
      Effect.mapError((e) => retryable(e) ? new Transient({ reason: e.message }) : e),
      Effect.filterOrFail((r) => r.status !== 429 && (r.status < 502 || r.status > 504), (r) => new Transient({ reason: `status ${r.status}` })),
      Effect.retry({ schedule: RETRY, while: (e) => e._tag === "Transient" })
    ))

const decodeAnswer = Schema.decodeUnknownOption(OutgoingAnswer)

/** Only where a callback goes is logged: its path or query may hold a secret. */
const originOf = (url: string) => {
  try {
    return new URL(url).origin
  } catch {
    return "an invalid URL"
  }
}

const parseAnswer = (status: number, body: string) => {
  if (status < 200 || status > 299 || body.trim() === "") return Option.none()
  try {
    return decodeAnswer(JSON.parse(body))
  } catch {
    return Option.none()
  }
}

const deliver = (hook: OutgoingRow, fired: Fired, payload: OutgoingPayload, url: string) =>
  Effect.gen(function*() {
    const json = hook.content_type === "application/json"
    const response = yield* call(url, json ? "application/json" : "application/x-www-form-urlencoded", json ? JSON.stringify(payload) : formBody(payload))
    const answer = parseAnswer(response.status, response.body)
    if (Option.isNone(answer)) return yield* counted("delivered")
    const { text, attachments, props } = answer.value
    if ((text ?? "").trim() === "" && (attachments ?? []).length === 0) return yield* counted("delivered")
    const db = yield* Db
    const creator = yield* makeIncomingRepo(db).userRoles(hook.creator_id)
    if (Option.isNone(creator)) {
      yield* counted("delivered")
      return yield* Effect.logWarning(`outgoing webhook ${hook.id}: its creator is deactivated; answer not posted`)
    }
    const switches = yield* integrationSwitches
    yield* postAsWebhook(switches, { id: hook.creator_id, ...creator.value }, {
      channelId: fired.post.channel_id,
      // A reply to a reply goes to the same thread.
      rootId: answer.value.response_type === "comment" ? (fired.post.root_id || fired.post.id) : "",
      text: text ?? "",
      props: { ...props, webhook_display_name: hook.display_name },
      attachments: attachments ?? [],
      username: answer.value.username || hook.username,
      iconUrl: answer.value.icon_url || hook.icon_url,
      iconEmoji: ""
    }, { anyChannel: true, split: true })
    yield* counted("posted")
  }).pipe(Effect.catchAllCause((cause) =>
    Effect.zipRight(counted("failed"), Effect.logWarning(`outgoing webhook ${hook.id} to ${originOf(url)} failed`, cause))
  ))

/** Whether the hooks known in memory (undefined: not known) trigger nothing for the post. */
const noneTriggered = (teamHooks: ReadonlyArray<OutgoingRow> | undefined, fired: Fired) =>
  teamHooks !== undefined && teamHooks.every((hook) => triggerWord(hook, fired.post.channel_id, fired.post.message) === undefined)

/** One post: the hooks it triggers, each called at all of its URLs at once. */
export const fire = (fired: Fired) =>
  Effect.gen(function*() {
    const db = yield* Db
    // The statement is built only when the team's hooks are not in memory: nearly every post finds them there, and
    // building the repository and its statement per post cost about 3% of a POST /posts in a profile (issue 10).
    const teamHooks = yield* Effect.flatMap(OutgoingHookCache, (cache) =>
      cache.teamHooks(fired.teamId, Effect.suspend(() => makeOutgoingRepo(db).byTeam(fired.teamId))))
    const triggered = teamHooks.flatMap((hook) => {
      const word = triggerWord(hook, fired.post.channel_id, fired.post.message)
      return word === undefined ? [] : [{ hook, word }]
    })
    if (triggered.length === 0 || !(yield* integrationSwitches).enableOutgoingWebhooks) return
    const hooks = makeOutgoingRepo(db)
    const teamDomain = yield* hooks.teamName(fired.teamId)
    yield* Effect.forEach(triggered, ({ hook, word }) => {
      const payload: OutgoingPayload = {
        token: hook.token,
        team_id: hook.team_id,
        team_domain: teamDomain,
        channel_id: fired.post.channel_id,
        channel_name: fired.channelName,
        timestamp: fired.post.create_at,
        user_id: fired.post.user_id,
        user_name: fired.userName,
        post_id: fired.post.id,
        text: fired.post.message,
        trigger_word: word,
        file_ids: (fired.post.file_ids ?? []).join(",")
      }
      return Effect.forEach(hook.callback_urls, (url) => deliver(hook, fired, payload, url), { concurrency: "unbounded", discard: true })
    }, { concurrency: "unbounded", discard: true })
  })

export const layer = Layer.scopedDiscard(
  Effect.gen(function*() {
    const bus = yield* EventBus
    const queue = yield* Queue.dropping<Fired>(QUEUE_SIZE)
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    // Synchronously in publish: a filter and an offer (issue 10: a Stream per subscriber cost a tenth of a post).
    const hooks = yield* OutgoingHookCache
    yield* bus.onLocal((envelope) => {
      const fired = firedBy(envelope)
      // A post no hook in memory takes is not queued (issue 10: a worker woken per post to find nothing to call);
      // `fire` decides the same from the same memory, and loads the hooks when memory does not hold them.
      if (fired === undefined || noneTriggered(hooks.cachedNow(fired.teamId), fired) || queue.unsafeOffer(fired)) return
      droppedTotal.unsafeUpdate(1, [])
      runFork(Effect.logWarning(`outgoing webhooks: queue full (${QUEUE_SIZE}); post ${fired.post.id} not sent to its hooks`))
    })
    const worker = Queue.take(queue).pipe(
      Effect.flatMap((fired) => fire(fired).pipe(Effect.catchAllCause((cause) => Effect.logWarning("outgoing webhooks: a post's hooks were not called", cause)))),
      Effect.forever
    )
    for (let i = 0; i < WORKERS; i++) yield* Effect.forkScoped(worker)
  })
)

import { Duration, Effect, FiberSet, Option, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { rows } from "../../layers/Rows.ts"
import { directName } from "../channels/ChannelWire.ts"
import { openDirect, openGroup } from "../channels/DirectChannels.ts"
import { createPost } from "../posts/CreatePost.ts"
import { answer, type CommandContext, ephemeral, inChannel } from "./CommandContext.ts"
import { CommandFibers } from "./CommandFibers.ts"
import { anyText } from "../../layers/SqlArrays.ts"

/** Built-ins that post: /me, /shrug, /code, /echo, /msg and /groupmsg, with Mattermost's parsing and messages. */

const me = (_ctx: CommandContext, message: string) => Effect.succeed(inChannel(`*${message}*`, { type: "me" }))

const shrug = (_ctx: CommandContext, message: string) => {
  const face = "¯\\\\\\_(ツ)\\_/¯"
  return Effect.succeed(inChannel(message === "" ? face : `${message} ${face}`))
}

/** Indented four spaces: a Markdown code block, left as typed (no Slack parsing). */
const code = (_ctx: CommandContext, message: string) =>
  Effect.succeed(
    message === ""
      ? ephemeral("A message must be provided with the /code command.")
      : inChannel(`    ${message.split("\n").join("\n    ")}`, { skip_slack_parsing: true })
  )

const ECHO_MAX_DELAY_S = 10_000
const ECHO_MAX_PENDING = 100
let echoesPending = 0

const post = (ctx: CommandContext, channelId: string, message: string, rootId = "") =>
  createPost(ctx.caller, { channel_id: channelId, message, root_id: rootId, file_ids: [], props: {}, pending_post_id: "", type: "" }, true)

/** `/echo text [delay]` or `/echo "text" [delay]`: posts the text as the user after the delay, in the background. */
const echo = (ctx: CommandContext, given: string) =>
  Effect.gen(function*() {
    if (given === "") return ephemeral("A message must be provided with the /echo command.")
    let message = given
    let delay = 0
    const endQuote = message.lastIndexOf("\"")
    if (message.startsWith("\"") && endQuote > 1) {
      const parsed = Number.parseInt(message.slice(endQuote).replace(/^[\s"]+|[\s"]+$/g, ""), 10)
      if (Number.isFinite(parsed)) delay = parsed
      message = message.slice(1, endQuote)
    } else if (message.includes(" ")) {
      const at = message.lastIndexOf(" ")
      const tail = message.slice(at).trim()
      if (/^-?\d+$/.test(tail)) {
        delay = Number(tail)
        message = message.slice(0, at)
      }
    }
    if (delay > ECHO_MAX_DELAY_S) return ephemeral("Delays must be under 10000 seconds.")
    if (echoesPending >= ECHO_MAX_PENDING) return ephemeral("High volume of echo request, cannot process request.")
    echoesPending += 1
    yield* Effect.sleep(Duration.seconds(Math.max(0, delay))).pipe(
      Effect.zipRight(post(ctx, ctx.channel.id, message, ctx.rootId)),
      Effect.catchAllCause((cause) => Effect.logWarning("an /echo post failed", cause)),
      Effect.ensuring(Effect.sync(() => void (echoesPending -= 1))),
      (later) => Effect.flatMap(CommandFibers, (fibers) => FiberSet.run(fibers, later))
    )
    return answer()
  })

const Named = Schema.Struct({ id: Schema.String, username: Schema.String })
type Named = typeof Named.Type
const NamedUsers = rows("MessageCommands users", Named)
const Names = rows("MessageCommands team name", Schema.Struct({ name: Schema.String }))

const usersByName = (names: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    if (names.length === 0) return [] as ReadonlyArray<Named>
    const db = yield* Db
    return yield* db.read(db.sql`
      SELECT id, username FROM users WHERE lower(username) = ${anyText(db.sql, names.map((n) => n.toLowerCase()))} AND delete_at = 0`.pipe(NamedUsers))
  })

const teamName = (teamId: string) =>
  Effect.gen(function*() {
    if (teamId === "") return Option.none<string>()
    const db = yield* Db
    const [team] = yield* db.read(db.sql`SELECT name FROM teams WHERE id = ${teamId} AND delete_at = 0`.pipe(Names))
    return Option.fromNullable(team?.name)
  })

/** `/msg @user text`: opens the DM (and posts the text there), then sends the client to it. */
const msg = (ctx: CommandContext, message: string) =>
  Effect.gen(function*() {
    const [first, ...rest] = message.split(" ")
    const text = rest.join(" ")
    const [target] = yield* usersByName([first.replace(/^@/, "")])
    if (target === undefined || target.id === ctx.caller.userId) return ephemeral("Unable to find the user.")
    const failed = ephemeral("An error occurred while messaging the user.")
    const channel = yield* openDirect(ctx.caller.userId, ctx.caller.userId, target.id).pipe(Effect.option)
    if (Option.isNone(channel)) return ephemeral("An error occurred while creating the direct message.")
    if (text !== "" && Option.isNone(yield* Effect.option(post(ctx, channel.value.id, text)))) return failed
    const team = yield* teamName(ctx.teamId)
    if (Option.isNone(team)) return failed
    return answer({ response_type: "ephemeral", goto_location: `${ctx.siteUrl}/${team.value}/channels/${directName(ctx.caller.userId, target.id)}` })
  })

/** Mattermost's groupMsgUsernames: comma-separated names, the text after the first name followed by a space. */
const groupNames = (message: string) => {
  const names: Array<string> = []
  let text = ""
  const parts = message.split(",")
  for (const [i, part] of parts.entries()) {
    const words = part.trim().replace(/^@/, "").split(/\s+/).filter((w) => w !== "")
    if (words.length > 0) names.push(words[0])
    if (words.length > 1) {
      text = parts.slice(i).join(",").trim().replace(/^@/, "").slice(words[0].length).trim()
      break
    }
  }
  return { names, text }
}

const GROUP_MIN = 3
const GROUP_MAX = 8

/** `/groupmsg @a,@b text`: opens the GM (a DM for one other user) and posts the text there. */
const groupmsg = (ctx: CommandContext, message: string) =>
  Effect.gen(function*() {
    const { names, text } = groupNames(message)
    const found = yield* usersByName(names)
    const missing = names.filter((n) => !found.some((u) => u.username.toLowerCase() === n.toLowerCase()))
    if (missing.length > 0) {
      return ephemeral(`Unable to find the user${missing.length > 1 ? "s" : ""}: @${missing.join(", @")}`)
    }
    const others = found.filter((u) => u.id !== ctx.caller.userId)
    if (others.length === 1) return yield* msg(ctx, `${others[0].username} ${text}`)
    if (others.length + 1 < GROUP_MIN) return ephemeral(`Group messages are limited to a minimum of ${GROUP_MIN - 1} users.`)
    if (others.length + 1 > GROUP_MAX) return ephemeral(`Group messages are limited to a maximum of ${GROUP_MAX - 1} users.`)
    const self = yield* Effect.flatMap(Db, (db) => db.read(db.sql`SELECT id, username FROM users WHERE id = ${ctx.caller.userId}`.pipe(NamedUsers)))
    const channel = yield* openGroup(ctx.caller.userId, [...self, ...others]).pipe(Effect.option)
    if (Option.isNone(channel)) return ephemeral("An error occurred while creating the group message.")
    const failed = ephemeral("An error occurred while messaging the users.")
    if (text !== "" && Option.isNone(yield* Effect.option(post(ctx, channel.value.id, text)))) return failed
    const team = yield* teamName(ctx.teamId)
    if (Option.isNone(team)) return failed
    return answer({ response_type: "ephemeral", goto_location: `${ctx.siteUrl}/${team.value}/channels/${channel.value.name}` })
  })

export const messageCommands = { me, shrug, code, echo, msg, groupmsg }

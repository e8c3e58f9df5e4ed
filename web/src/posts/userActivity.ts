import type { Post } from "@mattermost/types/posts"

/**
 * Mattermost's combined user activity (mattermost-redux makeCombineUserActivityPosts, the web app's
 * CombinedUserActivityPost): consecutive join, leave, add and remove posts of a channel or team show as one system
 * message, each kind of change one sentence naming everyone it touched ("@a, @b and @c joined the channel.").
 */

/** The kinds combined, in the order Mattermost's sentences come (its postTypeMessage). */
const KINDS = {
  system_join_channel: { verb: "joined the channel", byActor: false },
  system_guest_join_channel: { verb: "joined the channel as a guest", byActor: false },
  system_add_to_channel: { verb: "added to the channel", byActor: true },
  system_add_guest_to_chan: { verb: "added to the channel as a guest", byActor: true },
  system_remove_from_channel: { verb: "removed from the channel", byActor: false },
  system_leave_channel: { verb: "left the channel", byActor: false },
  system_join_team: { verb: "joined the team", byActor: false },
  system_add_to_team: { verb: "added to the team", byActor: true },
  system_remove_from_team: { verb: "removed from the team", byActor: false },
  system_leave_team: { verb: "left the team", byActor: false }
} as const

type Kind = keyof typeof KINDS

export const isUserActivity = (post: Post | undefined): post is Post =>
  post !== undefined && post.type in KINDS && !post.delete_at

/** A row of the list: one post, or a run of two or more user activity posts shown as one. */
export type Row = { readonly id: string; readonly combined?: ReadonlyArray<string> }

/**
 * Runs of consecutive user activity posts (same thread level) become one row; `breaks` start a new row (the first
 * unread post, a post to flash), so that their place in the list stays their own.
 */
export const combineRows = (ids: ReadonlyArray<string>, byId: Record<string, Post>, breaks: ReadonlySet<string>): Array<Row> => {
  const rows: Array<{ id: string; combined?: Array<string> }> = []
  let run: Array<string> = []
  const flush = () => {
    if (run.length === 1) rows.push({ id: run[0] })
    else if (run.length > 1) rows.push({ id: run[0], combined: run })
    run = []
  }
  for (const id of ids) {
    const post = byId[id]
    const joins = isUserActivity(post) && !breaks.has(id) && run.length > 0 && byId[run[0]].root_id === post.root_id
    if (!joins) flush()
    if (isUserActivity(post)) run.push(id)
    else rows.push({ id })
  }
  flush()
  return rows
}

const prop = (post: Post, key: string) => {
  const value = (post.props as Record<string, unknown> | undefined)?.[key]
  return typeof value === "string" ? value : ""
}

/** Who a post is about (the added or removed user, else its author) and who did it (an adder). */
const subjectOf = (post: Post) => {
  const kind = post.type as Kind
  if (kind === "system_add_to_channel" || kind === "system_add_guest_to_chan" || kind === "system_add_to_team") {
    return { id: prop(post, "addedUserId"), username: prop(post, "addedUsername"), actor: { id: prop(post, "userId") || post.user_id, username: prop(post, "username") } }
  }
  if (kind === "system_remove_from_channel") return { id: prop(post, "removedUserId"), username: prop(post, "removedUsername"), actor: undefined }
  return { id: post.user_id, username: prop(post, "username"), actor: undefined }
}

/** "a", "a and b", "a, b and c". */
export const listed = (names: ReadonlyArray<string>) =>
  names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`

/**
 * One sentence per kind of change (and per adder), in Mattermost's order; each person once per sentence. `nameOf`
 * names a user ("@username", or "You" for the reader, who comes first as in Mattermost).
 */
export const activitySentences = (run: ReadonlyArray<Post>, nameOf: (user: { id: string; username: string }) => string, myId: string | undefined) => {
  const groups = new Map<string, { kind: Kind; actor?: { id: string; username: string }; people: Array<{ id: string; username: string }> }>()
  for (const kind of Object.keys(KINDS) as Array<Kind>) {
    for (const post of run) {
      if (post.type !== kind) continue
      const { actor, ...person } = subjectOf(post)
      const key = `${kind} ${actor?.id ?? ""}`
      const group = groups.get(key) ?? { kind, actor, people: [] }
      if (!group.people.some((p) => p.id === person.id)) group.people.push(person)
      groups.set(key, group)
    }
  }
  return [...groups.values()].map(({ kind, actor, people }) => {
    const ordered = [...people.filter((p) => p.id === myId), ...people.filter((p) => p.id !== myId)]
    const { verb, byActor } = KINDS[kind]
    return `${listed(ordered.map(nameOf))} ${verb}${byActor && actor !== undefined ? ` by ${actor.id === myId ? "you" : nameOf(actor)}` : ""}.`
  })
}

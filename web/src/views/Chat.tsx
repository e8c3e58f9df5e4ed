import type { ServerChannel as Channel } from "@mattermost/types/channels"
import { Icon } from "./Icon.tsx"
import type { Post } from "@mattermost/types/posts"
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks"
import { client, errorMessage } from "../api.ts"
import { emojiChar } from "../emoji.ts"
import { navigate } from "../router.ts"
import { signOut } from "../session.ts"
import {
  addPosts, categories, channelLabel, channelPath, isFavourite, toggleFavourite, collapsedThreads, channels, connected, currentChannelId, currentTeamId, isAdmin, loadChannel, loadOlder, loadTeam,
  markViewed, me, members, needUsers, posts, refreshChannels, statuses, teams, timelines, typing, unread, users
} from "../store.ts"
import { link } from "./Auth.tsx"
import { Composer, typingText } from "./Composer.tsx"
import { Dialogs } from "./Dialogs.tsx"
import { Avatar, PostItem } from "./Post.tsx"
import { dialog, highlight, openThread, panel, profile } from "./panels.ts"
import { useFocus } from "./focus.ts"

const day = (at: number) => new Date(at).toDateString()
const dayLabel = (at: number) => {
  const d = new Date(at)
  const today = new Date()
  if (d.toDateString() === today.toDateString()) return "Today"
  if (d.toDateString() === new Date(today.getTime() - 86_400_000).toDateString()) return "Yesterday"
  return (d.getFullYear() === today.getFullYear() ? thisYear : otherYear).format(d)
}
// Made once: toLocaleDateString with options builds a formatter per call (see formatTime in store.ts).
const thisYear = new Intl.DateTimeFormat([], { weekday: "long", month: "long", day: "numeric" })
const otherYear = new Intl.DateTimeFormat([], { weekday: "long", month: "long", day: "numeric", year: "numeric" })

/** Posts from one author within five minutes, without a date change, show as one group (Mattermost's rule). */
const isCompact = (post: Post, prev: Post | undefined) =>
  prev !== undefined && prev.user_id === post.user_id && post.create_at - prev.create_at < 5 * 60_000 && day(prev.create_at) === day(post.create_at) &&
  !prev.delete_at && (post.root_id === "" || post.root_id === prev.root_id || post.root_id === prev.id)

const Sidebar = ({ teamName, threadsOpen }: { teamName: string; threadsOpen: boolean }) => {
  const current = currentChannelId.value
  const byId = channels.value
  const chanLink = (c: Channel) => channelPath(teamName, c)
  // Only this team's channels (and DMs, which belong to no team), also in the moment after a team switch while the
  // new team's categories are still loading.
  const teamId = teams.value.find((t) => t.name === teamName)?.id
  const inTeam = (c: Channel) => c.team_id === teamId || c.team_id === ""
  const own = categories.value.filter((c) => c.team_id === teamId)
  const cats = own.length > 0 ? own : [{ id: "all", display_name: "Channels", channel_ids: Object.values(byId).filter(inTeam).map((c) => c.id), type: "custom" } as any]
  return (
    <nav class="sidebar" aria-label="Channels">
      {collapsedThreads.value && (
        <a class={`threads-link${threadsOpen ? " active" : ""}`} href={`/${teamName}/threads`} onClick={link(`/${teamName}/threads`)} aria-current={threadsOpen ? "page" : undefined}>
          <span class="glyph"><Icon name="threads" /></span> <span class="label">Threads</span>
        </a>
      )}
      {cats.map((cat) => {
        const list = (cat.channel_ids as Array<string>).map((id) => byId[id]).filter((c): c is Channel => !!c && c.delete_at === 0 && !!members.value[c.id] && inTeam(c))
        if (list.length === 0 && cat.type !== "direct_messages" && cat.type !== "channels") return null
        return (
          <section key={cat.id} aria-labelledby={`cat-${cat.id}`}>
            <h2 id={`cat-${cat.id}`} class="category">
              {cat.display_name}
              {cat.type === "direct_messages" && <button type="button" class="icon small" aria-label="Write a direct message" onClick={() => (dialog.value = "dm")}><Icon name="plus" /></button>}
              {cat.type === "channels" && <button type="button" class="icon small" aria-label="Create a channel" onClick={() => (dialog.value = "create")}><Icon name="plus" /></button>}
            </h2>
            <ul>
              {list.map((c) => {
                const u = unread(c.id)
                const label = channelLabel(c)
                const name = `${label}${u.mentions ? `, ${u.mentions} mention${u.mentions > 1 ? "s" : ""}` : u.unread ? ", unread" : ""}`
                return (
                  <li key={c.id}>
                    <a href={chanLink(c)} onClick={link(chanLink(c))} aria-current={c.id === current ? "page" : undefined} aria-label={name}
                      class={`${u.unread ? "unread" : ""} ${c.id === current ? "active" : ""}`}>
                      <span aria-hidden="true" class="glyph">{c.type === "P" ? <Icon name="lock" /> : c.type === "O" ? "#" : "@"}</span>
                      <span class="label">{label}</span>
                      {/* The count is drawn by CSS: as text it would be part of the link's visible text but not of its name. */}
                      {u.mentions > 0 && <span class="badge" aria-hidden="true" data-count={u.mentions} />}
                    </a>
                  </li>
                )
              })}
            </ul>
          </section>
        )
      })}
      <button type="button" class="link" onClick={() => (dialog.value = "browse")}>Browse channels</button>
    </nav>
  )
}

const Header = ({ teamName }: { teamName: string }) => {
  const [menu, setMenu] = useState(false)
  const [terms, setTerms] = useState("")
  const status = statuses.value[me.value?.id ?? ""] ?? "online"
  const setStatus = async (s: string) => {
    await client.updateStatus({ user_id: me.value!.id, status: s } as any).catch(() => undefined)
    statuses.value = { ...statuses.value, [me.value!.id]: s }
  }
  return (
    <header class="topbar">
      <nav class="teams" aria-label="Teams">
        {teams.value.map((t) => (
          <a key={t.id} href={`/${t.name}/channels/town-square`} onClick={link(`/${t.name}/channels/town-square`)} aria-current={t.name === teamName ? "page" : undefined} title={t.display_name}>
            <span aria-hidden="true">{t.display_name.slice(0, 2)}</span><span class="sr-only">{t.display_name}</span>
          </a>
        ))}
        <a href="/create_team" onClick={link("/create_team")} title="Create a team"><Icon name="plus" /><span class="sr-only">Create a team</span></a>
      </nav>
      <form role="search" class="search" onSubmit={(e) => { e.preventDefault(); if (terms.trim()) panel.value = { kind: "search", terms: terms.trim() } }}>
        <input type="search" aria-label="Search messages" placeholder="Search" value={terms} onInput={(e) => setTerms(e.currentTarget.value)} />
      </form>
      {!connected.value && <span class="offline" role="status">Reconnecting…</span>}
      <button type="button" class="icon" aria-label="Saved messages" title="Saved messages" onClick={() => (panel.value = { kind: "saved" })}><Icon name="bookmark" /></button>
      <div class="usermenu" onKeyDown={(e) => {
        // Escape closes the menu and gives focus back to its button, as a menu button should.
        if (e.key === "Escape" && menu) { setMenu(false); (e.currentTarget.firstElementChild as HTMLElement | null)?.focus() }
      }}>
        <button type="button" aria-haspopup="menu" aria-expanded={menu} aria-label={`Account menu, ${me.value?.username}, ${status}`} onClick={() => setMenu(!menu)}>
          <Avatar userId={me.value!.id} size={28} />
        </button>
        {menu && (
          <div class="menu right" role="menu" onClick={() => setMenu(false)}>
            <p class="muted">@{me.value?.username}</p>
            {(["online", "away", "dnd", "offline"] as const).map((s) => (
              <button key={s} role="menuitemradio" aria-checked={status === s} type="button" onClick={() => void setStatus(s)}>
                {{ online: "Online", away: "Away", dnd: "Do not disturb", offline: "Offline" }[s]}
              </button>
            ))}
            <button role="menuitem" type="button" onClick={() => (dialog.value = "custom-status")}>{customStatus(me.value!) ? `Custom status: ${customStatus(me.value!)}` : "Set a custom status"}</button>
            <button role="menuitem" type="button" onClick={() => (dialog.value = "settings")}>Settings</button>
            {isAdmin.value && <a role="menuitem" href="/admin_console" onClick={link("/admin_console")}>System console</a>}
            <button role="menuitem" type="button" onClick={() => void signOut()}>Log out</button>
          </div>
        )}
      </div>
    </header>
  )
}

const PostList = ({ channelId, editing, setEditing }: { channelId: string; editing: string | null; setEditing: (id: string | null) => void }) => {
  const line = timelines.value[channelId]
  const scroller = useRef<HTMLDivElement>(null)
  const pinnedToBottom = useRef(true)
  const loadingOlder = useRef(false)
  const heightBefore = useRef(0)
  const collapsed = collapsedThreads.value
  const order = (line?.order ?? []).filter((id) => posts.value[id] && (!collapsed || !posts.value[id].root_id))

  useLayoutEffect(() => {
    if (performance.getEntriesByName("channel-data").length > 0) performance.measure("channel-render", "channel-data")
    const el = scroller.current
    if (!el) return
    if (heightBefore.current) {
      el.scrollTop += el.scrollHeight - heightBefore.current
      heightBefore.current = 0
    } else if (pinnedToBottom.current) el.scrollTop = el.scrollHeight
  })
  useEffect(() => {
    pinnedToBottom.current = true
  }, [channelId])
  // Time from the channel's posts arriving to the end of the first frame that shows them (read by the paint-time
  // test): the DOM is committed here, the next animation frame runs just before that frame's style, layout and paint,
  // and a task queued from it runs once they are done.
  useLayoutEffect(() => {
    if (performance.getEntriesByName("channel-data").length === 0) return
    requestAnimationFrame(() =>
      setTimeout(() => {
        performance.measure("channel-paint", "channel-data")
        performance.clearMarks("channel-data")
      }, 0)
    )
  }, [line])

  // A search result's "Jump": scroll to the post once it is loaded (older pages are fetched until it is), focus it.
  const target = highlight.value
  useEffect(() => {
    if (!target || !line) return
    const el = scroller.current?.querySelector<HTMLElement>(`[data-post-id="${target}"]`)
    if (el) {
      pinnedToBottom.current = false
      el.scrollIntoView({ block: "center" })
      el.focus({ preventScroll: true })
      highlight.value = null
    } else if (line.more && !loadingOlder.current && posts.value[target]?.channel_id === channelId) {
      loadingOlder.current = true
      void loadOlder(channelId).catch(() => undefined).finally(() => (loadingOlder.current = false))
    }
  }, [target, line])

  const onScroll = async () => {
    const el = scroller.current!
    pinnedToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40
    if (el.scrollTop < 200 && line?.more && !loadingOlder.current) {
      loadingOlder.current = true
      heightBefore.current = el.scrollHeight
      await loadOlder(channelId).catch(() => undefined)
      loadingOlder.current = false
    }
  }

  let prev: Post | undefined
  return (
    <div class="posts" ref={scroller} onScroll={onScroll} role="log" aria-label="Messages" aria-live="polite" tabIndex={0}>
      {line === undefined && <p class="muted center">Loading…</p>}
      {line && !line.more && <p class="muted center intro">This is the start of the channel.</p>}
      {order.map((id) => {
        const post = posts.value[id]
        const separator = !prev || day(prev.create_at) !== day(post.create_at)
        const compact = !separator && isCompact(post, prev)
        prev = post
        return (
          <div key={id}>
            {separator && <div class="separator" role="separator" aria-label={dayLabel(post.create_at)}><span>{dayLabel(post.create_at)}</span></div>}
            <PostItem id={id} compact={compact} editing={editing === id} setEditing={setEditing} />
          </div>
        )
      })}
    </div>
  )
}

const ChannelView = ({ channel }: { channel: Channel }) => {
  const [editing, setEditing] = useState<string | null>(null)
  const who = Object.keys(typing.value[channel.id] ?? {})
  const label = channelLabel(channel)
  useEffect(() => {
    void loadChannel(channel.id).catch(() => undefined)
    void markViewed(channel.id)
    const onFocus = () => void markViewed(channel.id)
    addEventListener("focus", onFocus)
    return () => removeEventListener("focus", onFocus)
  }, [channel.id])
  return (
    <main class="channel" aria-labelledby="channel-title">
      <header class="channel-header">
        <h1 id="channel-title">{channel.type === "O" ? "# " : channel.type === "P" ? <><Icon name="lock" label="Private channel" />{" "}</> : ""}{label}</h1>
        {channel.purpose && <p class="muted purpose">{channel.purpose}</p>}
        <button type="button" class="icon" aria-label="Favourite" aria-pressed={isFavourite(channel.id)} title={isFavourite(channel.id) ? "Remove from favourites" : "Add to favourites"}
          onClick={() => void toggleFavourite(channel).catch(() => undefined)}>{isFavourite(channel.id) ? "★" : "☆"}</button>
        <button type="button" class="icon" aria-label="Pinned messages" title="Pinned messages" onClick={() => (panel.value = { kind: "pinned", channelId: channel.id })}><Icon name="pin" /></button>
      </header>
      <PostList channelId={channel.id} editing={editing} setEditing={setEditing} />
      <p class="typing" aria-live="polite">{typingText(who.filter((id) => !typing.value[channel.id]?.[id] || true))}</p>
      <Composer channelId={channel.id} label={`Write to ${label}`} onEditLast={setEditing} />
    </main>
  )
}

const ThreadPanel = ({ rootId }: { rootId: string }) => {
  const [editing, setEditing] = useState<string | null>(null)
  const [error, setError] = useState("")
  const root = posts.value[rootId]
  useEffect(() => {
    client.getPostThread(rootId, false, false).then((t) => addPosts(Object.values(t.posts)), (e) => setError(errorMessage(e)))
    // Reading a followed thread clears its unread replies in the Followed threads list (not following: nothing to do).
    if (currentTeamId.value) void client.updateThreadReadForUser("me", currentTeamId.value, rootId, Date.now()).catch(() => undefined)
  }, [rootId])
  const replies = Object.values(posts.value).filter((p) => p.root_id === rootId).sort((a, b) => a.create_at - b.create_at)
  return (
    <aside class="panel" aria-label="Thread">
      <header><h2>Thread</h2><button type="button" class="icon" aria-label="Close thread" onClick={() => (panel.value = null)}>✕</button></header>
      {error && <p class="alert" role="alert">{error}</p>}
      <div class="posts">
        {root && <PostItem id={rootId} compact={false} inThread editing={editing === rootId} setEditing={setEditing} />}
        {replies.map((p, i) => <PostItem key={p.id} id={p.id} compact={isCompact(p, i ? replies[i - 1] : root)} inThread editing={editing === p.id} setEditing={setEditing} />)}
      </div>
      {root && <Composer channelId={root.channel_id} rootId={rootId} label="Reply to thread" onEditLast={setEditing} />}
    </aside>
  )
}

const ResultsPanel = ({ title, load }: { title: string; load: () => Promise<{ order: Array<string>; posts: Record<string, Post> }> }) => {
  const [ids, setIds] = useState<Array<string> | null>(null)
  const [error, setError] = useState("")
  useEffect(() => {
    setIds(null)
    load().then((r) => { addPosts(Object.values(r.posts)); setIds(r.order) }, (e) => setError(errorMessage(e)))
  }, [title])
  const jump = (post: Post) => {
    const c = channels.value[post.channel_id]
    const team = teams.value.find((t) => t.id === c?.team_id) ?? teams.value[0]
    if (!c || !team) return
    // With collapsed reply threads a reply is not in the channel: the channel shows its root, the panel the reply.
    highlight.value = post.root_id && collapsedThreads.value ? post.root_id : post.id
    navigate(channelPath(team.name, c))
    if (post.root_id) openThread(post.root_id)
  }
  return (
    <aside class="panel" aria-label={title}>
      <header><h2>{title}</h2><button type="button" class="icon" aria-label="Close panel" onClick={() => (panel.value = null)}>✕</button></header>
      {error && <p class="alert" role="alert">{error}</p>}
      {ids === null && !error && <p class="muted">Searching…</p>}
      {ids?.length === 0 && <p class="muted">No results</p>}
      <ul class="results">
        {ids?.map((id) => {
          const p = posts.value[id]
          if (!p) return null
          const c = channels.value[p.channel_id]
          return (
            <li key={id}>
              <p class="muted">{c ? channelLabel(c) : ""} · {new Date(p.create_at).toLocaleString()}</p>
              <PostItem id={id} compact={false} inThread editing={false} setEditing={() => undefined} />
              <button type="button" class="link" onClick={() => jump(p)}>Jump</button>
            </li>
          )
        })}
      </ul>
    </aside>
  )
}

/**
 * /{team}/threads: the threads this person follows in the team (collapsed reply threads), newest activity first,
 * unread replies counted; a thread opens in the side panel, and the list is fetched again when the panel closes.
 */
const ThreadsView = ({ teamId }: { teamId: string }) => {
  const [threads, setThreads] = useState<Array<{ id: string; reply_count: number; unread_replies: number; last_reply_at: number; post: Post }> | null>(null)
  const [error, setError] = useState("")
  const panelOpen = panel.value !== null
  useEffect(() => {
    if (panelOpen) return
    client.getUserThreads("me", teamId, { perPage: 50, extended: false }).then((r) => {
      addPosts(r.threads.map((t) => t.post as Post))
      setThreads(r.threads as any)
    }, (e) => setError(errorMessage(e)))
  }, [teamId, panelOpen])
  return (
    <main class="channel" aria-labelledby="threads-title">
      <header class="channel-header"><h1 id="threads-title">Threads</h1></header>
      {error && <p class="alert" role="alert">{error}</p>}
      {threads === null && !error && <p class="muted center">Loading…</p>}
      {threads?.length === 0 && <p class="muted center">You follow no threads yet: reply to a message or follow its thread.</p>}
      <ul class="results threads" aria-label="Followed threads">
        {threads?.map((t) => (
          <li key={t.id}>
            <button type="button" class="thread-link" onClick={() => openThread(t.id)}>
              <strong>{users.value[t.post.user_id]?.username ?? "…"}</strong>
              <span class="excerpt">{(posts.value[t.id]?.message ?? t.post.message).slice(0, 140)}</span>
              <span class="muted">{new Date(t.last_reply_at || t.post.create_at).toLocaleString()} · {t.reply_count === 1 ? "1 reply" : `${t.reply_count} replies`}{t.unread_replies ? ` · ${t.unread_replies} new` : ""}</span>
            </button>
          </li>
        ))}
      </ul>
    </main>
  )
}

export const customStatus = (user: { props?: Record<string, unknown> }) => {
  const raw = user.props?.customStatus
  if (typeof raw !== "string" || raw === "") return ""
  try {
    const value = JSON.parse(raw) as { emoji?: string; text?: string; expires_at?: string }
    // Mattermost writes the zero time ("0001-01-01T00:00:00Z") for a status that does not expire.
    if (value.expires_at && !value.expires_at.startsWith("0001-") && Date.parse(value.expires_at) < Date.now()) return ""
    return [value.emoji ? emojiChar(value.emoji) ?? `:${value.emoji}:` : "", value.text ?? ""].join(" ").trim()
  } catch {
    return ""
  }
}

const Popover = () => {
  const p = profile.value
  if (!p) return null
  const user = users.value[p.userId]
  const close = useFocus<HTMLButtonElement>()
  const openDm = async () => {
    profile.value = null
    const channel = await client.createDirectChannel([me.value!.id, p.userId])
    await refreshChannels()
    const team = teams.value.find((t) => t.id === channels.value[currentChannelId.value]?.team_id) ?? teams.value[0]
    if (team && user) navigate(`/${team.name}/messages/@${user.username}`)
    void channel
  }
  return (
    <div class="popover" role="dialog" aria-label={`Profile of ${user?.username ?? ""}`} style={{ left: `${p.x}px`, top: `${p.y}px` }}
      onKeyDown={(e) => e.key === "Escape" && (profile.value = null)}>
      <Avatar userId={p.userId} size={56} />
      <p><strong>{[user?.first_name, user?.last_name].filter(Boolean).join(" ") || user?.username}</strong></p>
      <p class="muted">@{user?.username} · {statuses.value[p.userId] ?? "offline"}</p>
      {user && customStatus(user) && <p>{customStatus(user)}</p>}
      {user?.position && <p>{user.position}</p>}
      {p.userId !== me.value?.id && <button type="button" onClick={() => void openDm()}>Message</button>}
      <button type="button" class="secondary" ref={close} onClick={() => (profile.value = null)}>Close</button>
    </div>
  )
}

/** /{team}/channels/{name} and /{team}/messages/@{username}. */
export const Chat = ({ teamName, channelName, dmUser, threadsView = false }: { teamName: string; channelName?: string; dmUser?: string; threadsView?: boolean }) => {
  const team = teams.value.find((t) => t.name === teamName)
  const [error, setError] = useState("")
  const [loaded, setLoaded] = useState("")

  useEffect(() => {
    if (!team) return
    setError("")
    loadTeam(team).then(() => setLoaded(team.id), (e) => setError(errorMessage(e)))
  }, [team?.id])

  // Resolve the address to a channel: known ones at once, others (a public channel by link, a new DM) by the API.
  const channel = Object.values(channels.value).find((c) => {
    if (dmUser) {
      const user = Object.values(users.value).find((u) => u.username === dmUser)
      return user !== undefined && c.type === "D" && c.name.split("__").includes(user.id) && (user.id === me.value?.id ? c.name === `${user.id}__${user.id}` : true)
    }
    return c.name === channelName && (c.team_id === team?.id || c.team_id === "") && members.value[c.id]
  })
  useEffect(() => {
    if (!team || loaded !== team.id || channel || threadsView) return
    const open = async () => {
      if (dmUser) {
        const user = await client.getUserByUsername(dmUser)
        needUsers([user.id])
        await client.createDirectChannel([me.value!.id, user.id])
      } else {
        const c = await client.getChannelByName(team.id, channelName!)
        await client.addToChannel(me.value!.id, c.id)
      }
      await refreshChannels()
    }
    open().catch((e) => setError(errorMessage(e, "This channel could not be opened")))
  }, [team?.id, loaded, channelName, dmUser, !!channel])

  useEffect(() => {
    currentChannelId.value = channel?.id ?? ""
  }, [channel?.id])

  if (!team) {
    return (
      <main class="auth"><div class="card"><h1>Team not found</h1><p>You are not a member of “{teamName}”.</p>
        <a href="/" onClick={link("/")}>Go to your teams</a></div></main>
    )
  }
  const p = panel.value
  return (
    <div class={`layout${p ? " with-panel" : ""}`}>
      <Header teamName={teamName} />
      <div class="team-name"><strong>{team.display_name}</strong></div>
      <Sidebar teamName={teamName} threadsOpen={threadsView} />
      {threadsView ? <ThreadsView teamId={team.id} /> : channel ? <ChannelView key={channel.id} channel={channel} /> : (
        <main class="channel"><p class={error ? "alert" : "muted"} role={error ? "alert" : undefined}>{error || "Loading…"}</p></main>
      )}
      {p?.kind === "thread" && <ThreadPanel rootId={p.rootId} />}
      {p?.kind === "search" && <ResultsPanel title={`Search results for “${p.terms}”`} load={() => client.searchPostsWithParams(team.id, { terms: p.terms, is_or_search: false, page: 0, per_page: 30 } as any)} />}
      {p?.kind === "saved" && <ResultsPanel title="Saved messages" load={() => client.getFlaggedPosts(me.value!.id, "", "", 0, 60)} />}
      {p?.kind === "pinned" && <ResultsPanel title="Pinned messages" load={() => client.getPinnedPosts(p.channelId)} />}
      <Popover />
      <Dialogs team={team} />
    </div>
  )
}

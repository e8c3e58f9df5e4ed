import type { Team } from "@mattermost/types/teams"
import { Client4 } from "mattermost-redux/client"
import storeModule from "mattermost-redux/store"
import { loadMe } from "mattermost-redux/actions/users"
import { fetchChannelsAndMembers } from "mattermost-redux/actions/channels"
import { createPost, getPosts } from "mattermost-redux/actions/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * The web app's start-up thunks from mattermost-redux, run against the server with the library's own store and its
 * singleton Client4: loadMe must fill config, license, the current user, preferences, teams, memberships, team
 * unreads and server limits without an error; then the team's channels, a channel's posts and a new post.
 */
let server: TestServer
let team: Team

// A CommonJS module: the default export arrives wrapped or not depending on the loader's interop.
type ConfigureStore = (options: { appReducers: object; getAppReducers: () => object; preloadedState: object }) => unknown
const configureStore = (typeof storeModule === "function" ? storeModule : (storeModule as { default: unknown }).default) as ConfigureStore

// mattermost-redux's thunk types want its full GlobalState; the test only dispatches and reads plain state.
type AnyStore = { dispatch: (action: unknown) => Promise<{ data?: unknown; error?: unknown }>; getState: () => any }

beforeAll(async () => {
  server = await startServer()
  const { client, user, username, password } = await newUser(server.url, "redux")
  team = await client.createTeam({ name: `redux${Date.now()}`, display_name: "Redux Team", type: "O" } as Team)
  await client.savePreferences(user.id, [{ user_id: user.id, category: "display_settings", name: "collapsed_reply_threads", value: "on" }])
  Client4.setUrl(server.url)
  await Client4.login(username, password)
})
afterAll(() => server?.close())

describe("mattermost-redux thunks", () => {
  let store: AnyStore

  it("loadMe fills the store without errors", async () => {
    store = configureStore({ appReducers: {}, getAppReducers: () => ({}), preloadedState: {} }) as unknown as AnyStore
    const result = await store.dispatch(loadMe())
    expect(result.error).toBeUndefined()
    expect(result.data).toBe(true)
    const { entities } = store.getState()
    expect(entities.general.config.DiagnosticId).toMatch(/^[a-z0-9]{26}$/)
    expect(entities.general.config.Version).toBe("10.11.0")
    expect(entities.general.license.IsLicensed).toBe("false")
    const me = entities.users.profiles[entities.users.currentUserId]
    expect(me.username).toMatch(/^redux/)
    expect(entities.preferences.myPreferences["display_settings--collapsed_reply_threads"].value).toBe("on")
    expect(Object.keys(entities.teams.teams)).toEqual([team.id])
    expect(Object.keys(entities.teams.myMembers)).toEqual([team.id])
    expect(entities.limits.serverLimits.activeUserCount).toBeGreaterThan(0)
  })

  it("fetchChannelsAndMembers, getPosts and createPost work on the team's town square", async () => {
    const fetched = await store.dispatch(fetchChannelsAndMembers(team.id))
    expect(fetched.error).toBeUndefined()
    const channels = Object.values(store.getState().entities.channels.channels) as Array<{ id: string; name: string }>
    const townSquare = channels.find((c) => c.name === "town-square")!
    expect(townSquare).toBeDefined()
    expect(store.getState().entities.channels.myMembers[townSquare.id]).toBeDefined()

    const created = await store.dispatch(createPost({ channel_id: townSquare.id, message: "from redux" } as never))
    expect(created.error).toBeUndefined()
    const posts = await store.dispatch(getPosts(townSquare.id))
    expect(posts.error).toBeUndefined()
    const messages = Object.values(store.getState().entities.posts.posts).map((p) => (p as { message: string }).message)
    expect(messages).toContain("from redux")
  })
})

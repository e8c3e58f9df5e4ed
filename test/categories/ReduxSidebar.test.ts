import type { Channel } from "@mattermost/types/channels"
import type { Team } from "@mattermost/types/teams"
import { fetchChannelsAndMembers, favoriteChannel, joinChannel, leaveChannel } from "mattermost-redux/actions/channels"
import { createCategory, deleteCategory, fetchMyCategories, moveCategory } from "mattermost-redux/actions/channel_categories"
import { UserTypes } from "mattermost-redux/action_types"
import { Client4 } from "mattermost-redux/client"
import { createRequire } from "node:module"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newUser } from "../support/Clients.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * The webapp's own redux thunks (mattermost-redux) driving the channel and sidebar endpoints: what they send must be
 * understood, and what the server answers must be what they store.
 */

let server: TestServer

beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server?.close())

// A CommonJS module whose default export TypeScript (NodeNext) and Vite resolve differently; require is unambiguous.
const configureStore = (createRequire(import.meta.url)("mattermost-redux/store/configureStore") as {
  default: (options: Record<string, unknown>) => { dispatch: unknown; getState: () => unknown }
}).default

const eventually = async (check: () => Promise<void>, timeoutMs = 3000) => {
  const started = Date.now()
  for (;;) {
    try {
      return await check()
    } catch (error) {
      if (Date.now() - started > timeoutMs) throw error
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }
}

type Dispatch = (action: unknown) => Promise<{ data?: unknown; error?: unknown }>

describe("mattermost-redux channel and category thunks", () => {
  it("loads channels, members and categories, favourites a channel, and manages a custom category", async () => {
    const me = await newUser(server.url, "rdx")
    const team: Team = await me.client.createTeam({ name: `rdx${Date.now().toString(36)}`, display_name: "Redux", type: "O" } as Team)
    const lounge: Channel = await me.client.createChannel({ team_id: team.id, name: "lounge", display_name: "Lounge", type: "O" } as Channel)
    const other = await newUser(server.url, "rdy")
    await me.client.addToTeam(team.id, other.user.id)
    const hall: Channel = await other.client.createChannel({ team_id: team.id, name: "hall", display_name: "Hall", type: "O" } as Channel)

    Client4.setUrl(server.url)
    Client4.setToken(me.client.getToken())
    const store = configureStore({ appReducers: {}, getAppReducers: () => ({}), preloadedState: {} })
    const dispatch = store.dispatch as unknown as Dispatch
    const state = () => store.getState() as any
    await dispatch({ type: UserTypes.RECEIVED_ME, data: me.user })

    expect((await dispatch(fetchChannelsAndMembers(team.id))).error).toBeUndefined()
    expect(Object.keys(state().entities.channels.myMembers).sort()).toEqual(
      (await me.client.getMyChannels(team.id)).map((c) => c.id).sort()
    )
    expect(state().entities.channels.messageCounts[lounge.id]).toEqual({ total: 0, root: 0 })

    expect((await dispatch(fetchMyCategories(team.id))).error).toBeUndefined()
    const order: string[] = state().entities.channelCategories.orderByTeam[team.id]
    expect(order).toEqual([`favorites_${me.user.id}_${team.id}`, `channels_${me.user.id}_${team.id}`, `direct_messages_${me.user.id}_${team.id}`])

    expect((await dispatch(favoriteChannel(lounge.id))).error).toBeUndefined()
    const favorites = await me.client.getChannelCategory(me.user.id, team.id, order[0])
    expect(favorites.channel_ids).toEqual([lounge.id])
    expect((await me.client.getChannelCategory(me.user.id, team.id, order[1])).channel_ids).not.toContain(lounge.id)

    const created = await dispatch(createCategory(team.id, "Projects", [lounge.id]))
    expect(created.error).toBeUndefined()
    const projects = created.data as { id: string }
    expect((await me.client.getChannelCategory(me.user.id, team.id, projects.id)).channel_ids).toEqual([lounge.id])
    // The webapp learns of the new category from sidebar_category_created and fetches the categories again.
    expect((await dispatch(fetchMyCategories(team.id))).error).toBeUndefined()
    expect(state().entities.channelCategories.byId[projects.id]).toMatchObject({ display_name: "Projects", channel_ids: [lounge.id] })
    expect((await me.client.getChannelCategory(me.user.id, team.id, order[0])).channel_ids).toEqual([])

    expect((await dispatch(moveCategory(team.id, projects.id, 2))).error).toBeUndefined()
    expect((await me.client.getChannelCategoryOrder(me.user.id, team.id))[2]).toBe(projects.id)

    expect((await dispatch(joinChannel(me.user.id, team.id, hall.id))).error).toBeUndefined()
    expect(state().entities.channels.myMembers[hall.id]).toMatchObject({ user_id: me.user.id })
    expect((await me.client.getChannelCategory(me.user.id, team.id, order[1])).channel_ids).toContain(hall.id)
    // leaveChannel updates the store at once and sends its request without awaiting it.
    expect((await dispatch(leaveChannel(hall.id))).error).toBeUndefined()
    expect(state().entities.channels.myMembers[hall.id]).toBeUndefined()
    await eventually(async () => expect((await me.client.getMyChannels(team.id)).map((c) => c.id)).not.toContain(hall.id))

    expect((await dispatch(deleteCategory(projects.id))).error).toBeUndefined()
    const { categories } = await me.client.getChannelCategories(me.user.id, team.id)
    expect(categories.map((c) => c.id)).not.toContain(projects.id)
    expect(categories.flatMap((c) => c.channel_ids)).toContain(lounge.id)
  })
})

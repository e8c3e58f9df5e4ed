import type { Channel } from "@mattermost/types/channels"
import type { ChannelCategory } from "@mattermost/types/channel_categories"
import { describe, expect, it } from "vitest"
import { expectShape, Wire } from "../compat/Shapes.ts"
import { newUser } from "../support/Clients.ts"
import { serverForFile } from "../support/FileServer.ts"
import { teamOfTwo } from "../support/Teams.ts"

const env = serverForFile()

/** The categories with the `sort_order` Mattermost sends beside the fields of @mattermost/types. */
type Sorted = ChannelCategory & { sort_order: number }

/** Categories in `order`, numbered 0, 10, 20... as Mattermost numbers them (the mobile app sorts by sort_order / 10). */
const expectSortOrders = (state: { categories: Array<ChannelCategory>; order: Array<string> }) => {
  expect(state.categories.map((c) => c.id)).toEqual(state.order)
  expect(state.categories.map((c) => (c as Sorted).sort_order)).toEqual(state.order.map((_, i) => i * 10))
}

const setup = async () => {
  const { owner: me, member: friend, team } = await teamOfTwo(env.server.url, ["side", "frnd"])
  const dm: Channel = await me.client.createDirectChannel([me.user.id, friend.user.id])
  return { me, friend, team, dm }
}

/** Every channel the user belongs to in the team (plus DMs/GMs) is in exactly one category. */
const expectEachChannelOnce = async (client: Awaited<ReturnType<typeof newUser>>["client"], userId: string, teamId: string) => {
  const { categories } = await client.getChannelCategories(userId, teamId)
  const placed = categories.flatMap((c) => c.channel_ids).sort()
  const mine = (await client.getMyChannels(teamId)).map((c) => c.id).sort()
  expect(placed).toEqual(mine)
}

describe("sidebar categories", () => {
  it("creates the default categories on first read, with every channel placed once", async () => {
    const { me, team, dm } = await setup()
    const ordered = await me.client.getChannelCategories(me.user.id, team.id)
    expectShape(ordered, Wire.OrderedChannelCategories, "categories")
    const { categories, order } = ordered
    expect(categories.map((c) => [c.id, c.type, c.display_name])).toEqual([
      [`favorites_${me.user.id}_${team.id}`, "favorites", "Favorites"],
      [`channels_${me.user.id}_${team.id}`, "channels", "Channels"],
      [`direct_messages_${me.user.id}_${team.id}`, "direct_messages", "Direct Messages"]
    ])
    expect(order).toEqual(categories.map((c) => c.id))
    expectSortOrders({ categories, order })
    expect(categories[1].channel_ids).toHaveLength(2)
    expect(categories[2].channel_ids).toEqual([dm.id])
    await expectEachChannelOnce(me.client, me.user.id, team.id)

    // Reading again changes nothing; "me" names the caller.
    expect(await me.client.getChannelCategories("me", team.id)).toEqual({ categories, order })
  })

  it("files newly joined and created channels at the top of Channels and drops left ones", async () => {
    const { me, friend, team } = await setup()
    await me.client.getChannelCategories(me.user.id, team.id)
    const created: Channel = await me.client.createChannel({ team_id: team.id, name: "fresh", display_name: "Fresh", type: "O" } as Channel)
    let channels = (await me.client.getChannelCategories(me.user.id, team.id)).categories[1]
    expect(channels.channel_ids[0]).toBe(created.id)

    const gm: Channel = await me.client.createGroupChannel([friend.user.id, (await newUser(env.server.url, "gm3")).user.id])
    expect((await me.client.getChannelCategories(me.user.id, team.id)).categories[2].channel_ids).toContain(gm.id)

    await me.client.removeFromChannel(me.user.id, created.id)
    channels = (await me.client.getChannelCategories(me.user.id, team.id)).categories[1]
    expect(channels.channel_ids).not.toContain(created.id)
    await expectEachChannelOnce(me.client, me.user.id, team.id)
  })

  it("creates, updates, reorders and deletes a custom category, moving channels between categories", async () => {
    const { me, team, dm } = await setup()
    const { categories } = await me.client.getChannelCategories(me.user.id, team.id)
    const [favorites, channels, direct] = categories
    const townSquare = channels.channel_ids[0]
    env.log.clear()

    const custom = await me.client.createChannelCategory(me.user.id, team.id, { display_name: "Work", channel_ids: [townSquare, dm.id] })
    expectShape(custom, Wire.ChannelCategory, "custom")
    expect(custom).toMatchObject({ type: "custom", display_name: "Work", channel_ids: [townSquare, dm.id], user_id: me.user.id, team_id: team.id })
    expect(env.log.named("sidebar_category_created")[0]).toMatchObject({ data: { category_id: custom.id }, broadcast: { user_id: me.user.id, team_id: team.id } })
    const updatedIds = JSON.parse(env.log.named("sidebar_category_updated")[0].data.updatedCategories as string).map((c: ChannelCategory) => c.id).sort()
    expect(updatedIds).toEqual([channels.id, direct.id].sort())

    // Placed after Favorites, which comes first, as Mattermost places it; the others move down by 10.
    expect((custom as Sorted).sort_order).toBe(10)
    let state = await me.client.getChannelCategories(me.user.id, team.id)
    expect(state.order).toEqual([favorites.id, custom.id, channels.id, direct.id])
    expectSortOrders(state)
    expect(state.categories.find((c) => c.id === channels.id)!.channel_ids).not.toContain(townSquare)
    expect(state.categories.find((c) => c.id === direct.id)!.channel_ids).toEqual([])
    await expectEachChannelOnce(me.client, me.user.id, team.id)

    // Favourite town-square through the bulk update; rename and collapse the custom one.
    const updated = await me.client.updateChannelCategories(me.user.id, team.id, [
      { ...favorites, channel_ids: [townSquare] },
      { ...custom, display_name: "Work stuff", collapsed: true, channel_ids: [dm.id] }
    ])
    updated.forEach((c, i) => expectShape(c, Wire.ChannelCategory, `updated[${i}]`))
    expect(updated.map((c) => c.id)).toEqual([favorites.id, custom.id].sort((a, b) => state.order.indexOf(a) - state.order.indexOf(b)))
    expect(await me.client.getChannelCategory(me.user.id, team.id, custom.id)).toMatchObject({ display_name: "Work stuff", collapsed: true, channel_ids: [dm.id] })
    expect((await me.client.getChannelCategory(me.user.id, team.id, favorites.id)).channel_ids).toEqual([townSquare])
    // Moving channels between categories, or a sort_order sent in an update, leaves the categories' order and numbers
    // as they were (Mattermost changes them only through the order route).
    await me.client.updateChannelCategory(me.user.id, team.id, { ...custom, display_name: "Work stuff", collapsed: true, channel_ids: [dm.id], sort_order: 990 } as ChannelCategory)
    const afterMove = await me.client.getChannelCategories(me.user.id, team.id)
    expect(afterMove.order).toEqual(state.order)
    expectSortOrders(afterMove)

    const order = [channels.id, favorites.id, direct.id, custom.id]
    expect(await me.client.updateChannelCategoryOrder(me.user.id, team.id, order)).toEqual(order)
    expect(await me.client.getChannelCategoryOrder(me.user.id, team.id)).toEqual(order)
    expectSortOrders(await me.client.getChannelCategories(me.user.id, team.id))
    expect((await me.client.getChannelCategory(me.user.id, team.id, custom.id) as Sorted).sort_order).toBe(30)

    // With Favorites no longer first, a new category goes to the top.
    const second = await me.client.createChannelCategory(me.user.id, team.id, { display_name: "Later" })
    expect((second as Sorted).sort_order).toBe(0)
    state = await me.client.getChannelCategories(me.user.id, team.id)
    expect(state.order).toEqual([second.id, ...order])
    expectSortOrders(state)
    await me.client.deleteChannelCategory(me.user.id, team.id, second.id)
    expect(env.log.named("sidebar_category_order_updated").at(-1)!.data.order).toEqual(order)

    await me.client.deleteChannelCategory(me.user.id, team.id, custom.id)
    expect(env.log.named("sidebar_category_deleted").at(-1)!.data.category_id).toBe(custom.id)
    state = await me.client.getChannelCategories(me.user.id, team.id)
    expect(state.order).toEqual([channels.id, favorites.id, direct.id])
    expectSortOrders(state)
    expect(state.categories.find((c) => c.id === direct.id)!.channel_ids).toEqual([dm.id])
    await expectEachChannelOnce(me.client, me.user.id, team.id)
  })

  it("refuses bad input with 400 and changes nothing", async () => {
    const { me, friend, team, dm } = await setup()
    const before = await me.client.getChannelCategories(me.user.id, team.id)
    const [favorites, channels, direct] = before.categories
    const foreign: Channel = await friend.client.createChannel({ team_id: team.id, name: "theirs", display_name: "Theirs", type: "P" } as Channel)
    const attempts: Array<() => Promise<unknown>> = [
      () => me.client.createChannelCategory(me.user.id, team.id, { display_name: "" }),
      () => me.client.createChannelCategory(me.user.id, team.id, { display_name: "X", channel_ids: [foreign.id] }),
      () => me.client.updateChannelCategory(me.user.id, team.id, { ...channels, channel_ids: [...channels.channel_ids, dm.id] }),
      () => me.client.updateChannelCategory(me.user.id, team.id, { ...direct, channel_ids: channels.channel_ids }),
      () => me.client.updateChannelCategory(me.user.id, team.id, { ...favorites, display_name: "Renamed" }),
      () => me.client.updateChannelCategories(me.user.id, team.id, [{ ...favorites, channel_ids: [dm.id] }, { ...direct, channel_ids: [dm.id] }]),
      () => me.client.updateChannelCategoryOrder(me.user.id, team.id, [favorites.id, channels.id]),
      () => me.client.deleteChannelCategory(me.user.id, team.id, channels.id)
    ]
    for (const attempt of attempts) await expect(attempt()).rejects.toMatchObject({ status_code: 400 })
    expect(await me.client.getChannelCategories(me.user.id, team.id)).toEqual(before)
    await expect(me.client.getChannelCategory(me.user.id, team.id, "custom_unknown")).rejects.toMatchObject({ status_code: 404 })
  })

  it("keeps other users and outsiders out", async () => {
    const { me, friend, team } = await setup()
    const outsider = await newUser(env.server.url, "outs")
    await expect(friend.client.getChannelCategories(me.user.id, team.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(outsider.client.getChannelCategories(outsider.user.id, team.id)).rejects.toMatchObject({ status_code: 403 })
    await expect(friend.client.createChannelCategory(me.user.id, team.id, { display_name: "Mine" })).rejects.toMatchObject({ status_code: 403 })
  })

  it("mutes a category's channels with it", async () => {
    const { me, team } = await setup()
    const { categories } = await me.client.getChannelCategories(me.user.id, team.id)
    const channels = categories[1]
    await me.client.updateChannelCategory(me.user.id, team.id, { ...channels, muted: true })
    for (const id of channels.channel_ids) {
      expect((await me.client.getMyChannelMember(id)).notify_props.mark_unread).toBe("mention")
    }
    await me.client.updateChannelCategory(me.user.id, team.id, { ...channels, muted: false })
    expect((await me.client.getMyChannelMember(channels.channel_ids[0])).notify_props.mark_unread).toBe("all")
  })
})

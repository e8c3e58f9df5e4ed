import type { Channel } from "@mattermost/types/channels"
import type { Post } from "@mattermost/types/posts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Fixtures } from "../files/Fixtures.ts"
import { MattermostSocket, wsUrl } from "../realtime/Sockets.ts"
import { client4, newUser, unique } from "../support/Clients.ts"
import { type LoopbackSmtp, type ReceivedMail, startSmtpServer } from "../support/SmtpServer.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

/**
 * Mention and direct-message emails for people who are away, through a real SMTP server on loopback. Two nodes share
 * one database and both run the batching job (every 100 ms here): each notification is mailed once. The users' own
 * `email_interval` preference decides how long notifications wait to be batched; "30" means at once.
 */
let smtp: LoopbackSmtp
let first: TestServer
let second: TestServer
let db: Fixtures
type User = Awaited<ReturnType<typeof newUser>>
let owner: User
let teamName: string
let teamId: string
let channel: Channel

const env = () => ({ SERVICE_SMTP_URL: smtp.url, SERVICE_EMAIL_FROM: "chat@example.com", SERVICE_EMAIL_BATCHING_CHECK_MS: "100" })

const mailsTo = (user: User) => smtp.received.filter((m) => m.to.includes(user.user.email))

const mailTo = async (user: User, count = 1): Promise<ReadonlyArray<ReceivedMail>> => {
  await expect.poll(() => mailsTo(user).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count)
  return mailsTo(user)
}

const waitingFor = async (user: User) =>
  (await db.query("SELECT post_id FROM pending_email_notifications WHERE user_id = $1", [user.user.id])).rows.map((r) => r.post_id)

const setInterval = (user: User, value: string) =>
  user.client.savePreferences(user.user.id, [{ user_id: user.user.id, category: "notifications", name: "email_interval", value }])

/** A team member in the channel, signed in, never connected (offline), mailed at once unless `interval` says. */
const member = async (prefix: string, interval = "30") => {
  const user = await newUser(first.url, prefix)
  await owner.client.addToTeam(teamId, user.user.id)
  await owner.client.addToChannel(user.user.id, channel.id)
  if (interval !== "") await setInterval(user, interval)
  return user
}

const post = (message: string, root_id = "", via = first) =>
  client4(via.url, owner.client.getToken()).createPost({ channel_id: channel.id, message, root_id } as Post)

describe("notification emails", () => {
  beforeAll(async () => {
    smtp = await startSmtpServer()
    first = await startServer({ env: env() })
    second = await startServer({ env: env(), databaseUrl: first.databaseUrl })
    db = await Fixtures.open(first.databaseUrl)
    owner = await newUser(first.url, "mailowner")
    teamName = unique("mailteam")
    const team = await owner.client.createTeam({ name: teamName, display_name: "Mail Team", type: "O" } as never)
    teamId = team.id
    channel = await owner.client.createChannel({ team_id: teamId, name: unique("general"), display_name: "Town <Hall>", type: "O" } as Channel)
  })
  afterAll(async () => {
    await db?.close()
    await second?.close()
    await first?.close()
    await smtp?.close()
  })

  it("mails an offline mentioned user once, with a link to the post in text and HTML", async () => {
    const alice = await member("alice")
    const mentioned = await post(`@${alice.username} can you check <this> & that?`)
    const [mail] = await mailTo(alice)
    const link = `${first.config.siteUrl}/${teamName}/pl/${mentioned.id}`
    expect(mail.from).toBe("chat@example.com")
    expect(mail.subject).toContain(`New message from @${owner.username} in Town <Hall>`)
    expect(mail.text).toContain(link)
    expect(mail.text).toContain("can you check <this> & that?")
    expect(mail.html).toContain(`href="${link}"`)
    expect(mail.html).toContain("can you check &lt;this&gt; &amp; that?")
    expect(mail.html).toContain("Town &lt;Hall&gt;")
    expect(await waitingFor(alice)).toEqual([])
    // A post not mentioning her mails nothing: once a later mention's mail is there, an earlier mail would be too.
    await post("just chatting")
    const again = await post(`@${alice.username} one more`)
    const mails = await mailTo(alice, 2)
    expect(mails).toHaveLength(2)
    expect(mails[1].text).toContain(again.id)
    expect(mails[1].text).not.toContain("just chatting")
  })

  it("mails nobody whose socket is open, nor those who turned email off or chose never", async () => {
    const online = await member("online")
    const off = await member("off")
    const never = await member("never")
    const witness = await member("witness")
    await off.client.patchMe({ notify_props: { ...off.user.notify_props, email: "false" } })
    await setInterval(never, "0")
    const socket = new MattermostSocket(wsUrl(first.url), online.client.getToken())
    await socket.connect()
    await socket.hello()
    await expect.poll(async () => (await online.client.getStatus(online.user.id)).status, { timeout: 5000 }).toBe("online")
    try {
      const p = await post(`@${online.username} @${off.username} @${never.username} @${witness.username} standup`)
      const [mail] = await mailTo(witness)
      expect(mail.text).toContain(p.id)
      for (const user of [online, off, never]) {
        expect(mailsTo(user)).toEqual([])
        expect(await waitingFor(user)).toEqual([])
      }
    } finally {
      socket.close()
    }
  })

  it("batches the mentions of a user's interval into one mail", async () => {
    const bob = await member("bob", "2")
    const one = await post(`@${bob.username} first question`)
    const two = await post(`@${bob.username} second question`, "", second)
    const [mail] = await mailTo(bob)
    expect(mail.subject).toContain("You have 2 new notifications")
    expect(mail.text).toContain(`/${teamName}/pl/${one.id}`)
    expect(mail.text).toContain(`/${teamName}/pl/${two.id}`)
    expect(mail.text.indexOf(one.id)).toBeLessThan(mail.text.indexOf(two.id))
    expect(await waitingFor(bob)).toEqual([])
    expect(mailsTo(bob)).toHaveLength(1)
  })

  it("waits fifteen minutes by default, and drops what the user has seen by coming online", async () => {
    const carol = await member("carol", "")
    const p = await post(`@${carol.username} when you are back`)
    await expect.poll(() => waitingFor(carol), { timeout: 5000 }).toEqual([p.id])
    const socket = new MattermostSocket(wsUrl(first.url), carol.client.getToken())
    await socket.connect()
    try {
      await expect.poll(() => waitingFor(carol), { timeout: 5000 }).toEqual([])
      expect(mailsTo(carol)).toEqual([])
    } finally {
      socket.close()
    }
  })

  it("mails direct messages and replies in followed threads", async () => {
    const dave = await member("dave")
    const dm = await owner.client.createDirectChannel([owner.user.id, dave.user.id])
    const direct = await owner.client.createPost({ channel_id: dm.id, message: "private word" } as Post)
    const [dmMail] = await mailTo(dave)
    expect(dmMail.subject).toContain(`New direct message from @${owner.username}`)
    // A DM belongs to no team: the link goes through one of the recipient's.
    expect(dmMail.text).toContain(`/${teamName}/pl/${direct.id}`)

    const root = await dave.client.createPost({ channel_id: channel.id, message: "my proposal" } as Post)
    const reply = await post("looks good to me", root.id)
    const mails = await mailTo(dave, 2)
    expect(mails[1].text).toContain(reply.id)
  })

  it("mails each notification once across two nodes", async () => {
    const users = await Promise.all(["n1", "n2", "n3", "n4"].map((p) => member(p)))
    const names = users.map((u) => `@${u.username}`).join(" ")
    await Promise.all([post(`${names} from the first node`), post(`${names} from the second node`, "", second)])
    // The two posts may go out in one mail or in two (a node may claim a user's rows between the two writes): wait
    // until both reached every user, and until nothing is left waiting, before counting.
    const seen = (user: User, text: string) => mailsTo(user).some((m) => m.text.includes(text))
    for (const user of users) {
      await expect.poll(() => seen(user, "from the first node") && seen(user, "from the second node"), { timeout: 10_000 }).toBe(true)
    }
    const ids = users.map((u) => u.user.id)
    await expect.poll(async () => (await db.query("SELECT count(*)::int AS n FROM pending_email_notifications WHERE user_id = ANY($1)", [ids])).rows[0].n, {
      timeout: 5000
    }).toBe(0)
    for (const user of users) {
      const texts = mailsTo(user).map((m) => m.text).join("\n")
      // Both posts reached each user exactly once, whether in one mail or two.
      expect(texts.split("from the first node").length - 1).toBe(1)
      expect(texts.split("from the second node").length - 1).toBe(1)
    }
  })

  it("records nothing on a node without SMTP", async () => {
    const quiet = await startServer({ databaseUrl: first.databaseUrl })
    try {
      const erin = await member("erin")
      const p = await post(`@${erin.username} hello`, "", quiet)
      // The config says so, and the post leaves no waiting notification behind.
      expect((await client4(quiet.url, erin.client.getToken()).getClientConfig() as Record<string, string>).SendEmailNotifications).toBe("false")
      const witness = await member("witness2")
      await post(`@${witness.username} hello`)
      await mailTo(witness)
      expect(await waitingFor(erin)).toEqual([])
      expect(mailsTo(erin)).toEqual([])
      expect(p.id).not.toBe("")
    } finally {
      await quiet.close()
    }
  })
})

import { describe, expect, it } from "vitest"
import { tsToMillis } from "../../src/imports/slack/Messages.ts"
import { slackToMarkdown } from "../../src/imports/slack/Markup.ts"
import { mattermostEmoji } from "../../src/imports/slack/Emoji.ts"
import { channelNameFrom, usernameFrom } from "../../src/imports/slack/Names.ts"

/** Slack's markup as Mattermost Markdown, and Slack's names and times as this server's. */
const names = {
  user: (id: string) => ({ U1: "alice", U2: "bob.smith" } as Record<string, string>)[id],
  channel: (id: string) => ({ C1: "general", C2: "dev-ops" } as Record<string, string>)[id]
}
const md = (text: string) => slackToMarkdown(text, names)

describe("Slack markup", () => {
  it.each([
    ["hi <@U1>", "hi @alice"],
    ["<@U2|bob> and <@U9|ghost>", "@bob.smith and @ghost"],
    ["<@U9>", "@U9"],
    ["see <#C1|general> and <#C2>", "see ~general and ~dev-ops"],
    ["<!channel> <!here> <!everyone>", "@channel @here @all"],
    ["<!here|here> now", "@here now"],
    ["<!subteam^S1|@devs> ping", "@devs ping"],
    ["<!date^1700000000^{date}|Nov 14> ok", "Nov 14 ok"],
    ["<https://example.com|the site>", "[the site](https://example.com)"],
    ["<https://example.com>", "https://example.com"],
    ["<https://example.com/?a=1&amp;b=2|q>", "[q](https://example.com/?a=1&b=2)"],
    ["<mailto:a@example.com|a@example.com>", "a@example.com"],
    ["*bold* _italic_ ~strike~", "**bold** _italic_ ~~strike~~"],
    ["*bold with _italic_ inside*", "**bold with _italic_ inside**"],
    ["a * b * c", "a * b * c"],
    ["snake_case_name and 2*3*4", "snake_case_name and 2*3*4"],
    ["*<@U1>*", "**@alice**"],
    ["<https://x.org/a_b_c|link>", "[link](https://x.org/a_b_c)"],
    ["&lt;b&gt; &amp;amp; &amp;lt;", "<b> &amp; &lt;"],
    ["&gt; quoted", "> quoted"],
    ["`*not bold* &lt;x&gt;`", "`*not bold* <x>`"],
    ["```\n<@U1> *x*\n``` *y*", "```\n<@U1> *x*\n``` **y**"],
    ["café *über* 日本語 🎉", "café **über** 日本語 🎉"],
    ["&quot;q&quot; &apos;a&apos; &#8212; &#x1F600; &#0; &#xD800;", "\"q\" 'a' \u2014 \u{1F600} &#0; &#xD800;"],
    [":simple_smile: :+1::skin-tone-2: :male-technologist: :tada:", ":slightly_smiling_face: :+1: :man_technologist: :tada:"],
    ["`:simple_smile:`", "`:simple_smile:`"],
    ["", ""]
  ])("%j → %j", (input, expected) => {
    expect(md(input)).toBe(expected)
  })

  it("text without markup comes through unchanged", () => {
    const samples = ["plain words", "numbers 1, 2.5 and 3", "a_b c-d e.f", "ünïcödé ✓ 🙂", "line\nbreaks\n\nkept", "email a@b.c", "100% sure?"]
    for (const s of samples) expect(md(s)).toBe(s)
  })

  it("no Slack token or escape survives, whatever the mix", () => {
    // Tokens, escapes and marks in pseudo-random order (a fixed seed, so a failure repeats).
    const pieces = ["<@U1>", "<@U7|x>", "<#C2>", "<!here>", "<http://a.b|c>", "&lt;", "&gt;", "*b*", "_i_", "word", " ", "\n", "é"]
    let seed = 7
    for (let i = 0; i < 300; i++) {
      const parts: Array<string> = []
      for (let j = 0; j < 8; j++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31
        parts.push(pieces[seed % pieces.length])
      }
      const out = md(parts.join(""))
      // What remains of a token is its Mattermost form; a decoded "&lt;" is a "<" the author typed.
      const tokens = parts.filter((p) => p.startsWith("<")).length
      expect(out.split(/<(?=[@#!])/).length - 1).toBeLessThanOrEqual(parts.filter((p) => p === "&lt;").length)
      expect(out).not.toMatch(/&(lt|gt);|\u0000/)
      expect(out.match(/@alice|@x|~dev-ops|@here|\[c\]\(http:\/\/a\.b\)/g)?.length ?? 0).toBe(tokens)
    }
  })
})

describe("Slack names and times", () => {
  it.each([
    ["alice", "alice"],
    ["Bob.Smith", "bob.smith"],
    ["josé", "jose"],
    ["1337", "u1337"],
    ["al", "al_"],
    ["here", "here_"],
    ["a very long name with spaces", "a_very_long_name_with_"]
  ])("username %j → %j", (input, expected) => {
    expect(usernameFrom(input)).toBe(expected)
  })

  it("channel names are made valid", () => {
    expect(channelNameFrom("général", "C1")).toBe("general")
    expect(channelNameFrom("--dev ops--", "C1")).toBe("dev-ops")
    expect(channelNameFrom("日本", "C9X")).toBe("channel-c9x")
  })

  it("a Slack timestamp becomes milliseconds exactly", () => {
    expect(tsToMillis("1700000000.123456")).toBe(1_700_000_000_123)
    expect(tsToMillis("1700000000.999999")).toBe(1_700_000_000_999)
    expect(tsToMillis("1700000000.1")).toBe(1_700_000_000_100)
    expect(tsToMillis("1700000000")).toBe(1_700_000_000_000)
  })
})

describe("Slack emoji names", () => {
  it.each([
    ["+1", "+1"],
    ["thumbsup::skin-tone-3", "thumbsup"],
    ["face_with_rolling_eyes", "roll_eyes"],
    ["woman-facepalming", "woman_facepalming"],
    ["female-technologist", "woman_technologist"],
    ["partyparrot", "partyparrot"]
  ])("%s → %s", (slack, mattermost) => {
    expect(mattermostEmoji(slack)).toBe(mattermost)
  })
})

import { readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { decodedFromWire, DomainEvent, EventNames, type EventTag, fromWire, tagOf, toWire } from "../../schemas/Events.ts"
import type { EventBusService } from "../../src/events/EventBus.ts"
import { membershipEvents } from "../../src/realtime/Membership.ts"

/**
 * Events are typed (schemas/Events.ts): features publish a DomainEvent, and its Mattermost name and data come from
 * the one table there. The bus still takes a name and raw data, for tests' probes and custom events only; this
 * checks that src/ never uses that form (three arguments, or a string literal for a name) outside src/events.
 */
const ROOT = resolve(import.meta.dirname, "../..")

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : []
  })

const isStringy = (node: ts.Expression): boolean =>
  ts.isStringLiteralLike(node) || ts.isTemplateExpression(node) ||
  (ts.isConditionalExpression(node) && (isStringy(node.whenTrue) || isStringy(node.whenFalse))) ||
  (ts.isParenthesizedExpression(node) && isStringy(node.expression))

/** `publish(...)` calls in a file that publish by name: a string literal first, or the three-argument form. */
const rawPublishes = (path: string): Array<string> => {
  const text = readFileSync(join(ROOT, path), "utf8")
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const found: Array<string> = []
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression
      const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : ""
      if (name === "publish" && node.arguments.length > 0 && (isStringy(node.arguments[0]) || node.arguments.length === 3)) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart())
        found.push(`${path}:${line + 1}: ${node.getText().split("\n")[0]}`)
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe("domain events", () => {
  it("are published typed everywhere in src/ outside src/events (no event named by a string)", () => {
    const offenders = sourceFiles("src").filter((f) => !f.startsWith("src/events/")).flatMap(rawPublishes)
    expect(offenders).toEqual([])
  })

  it("finds a publish by name where there is one (the check above is not vacuous)", () => {
    expect(rawPublishes("test/compat/Events.ts").length).toBeGreaterThan(0)
  })

  it("take their Mattermost name from the one table", () => {
    expect(toWire(DomainEvent.ChannelViewed({ channelId: "c" }))).toEqual({ event: "channel_viewed", data: { channel_id: "c" } })
    expect(toWire(DomainEvent.CallsEnabled()).event).toBe(EventNames.CallsEnabled)
    expect(EventNames.CallStarted).toBe("custom_com.mattermost.calls_call_start")
  })
})

/**
 * Consumers (realtime, push, mails, webhooks, calls) decide on the typed event's `_tag`, never on its Mattermost name:
 * outside schemas/ and src/events, src/ neither reads the name table nor compares, switches on or lists a string that
 * is a domain event's name.
 */
const mattermostNames: ReadonlySet<string> = new Set(Object.values(EventNames))

const nameDecisions = (path: string, text: string): Array<string> => {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const found: Array<string> = []
  const report = (node: ts.Node) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart())
    found.push(`${path}:${line + 1}: ${node.getText().split("\n")[0]}`)
  }
  const isName = (node: ts.Node) => ts.isStringLiteralLike(node) && mattermostNames.has(node.text)
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && node.text === "EventNames") report(node)
    else if (ts.isBinaryExpression(node) && /^[!=]==?$/.test(node.operatorToken.getText()) && (isName(node.left) || isName(node.right))) report(node)
    else if (ts.isCaseClause(node) && isName(node.expression)) report(node)
    else if (ts.isArrayLiteralExpression(node) && node.elements.some(isName)) report(node)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe("domain event consumers", () => {
  it("match on the typed event, never on a Mattermost event name (outside schemas/ and src/events)", () => {
    const offenders = sourceFiles("src").filter((f) => !f.startsWith("src/events/"))
      .flatMap((f) => nameDecisions(f, readFileSync(join(ROOT, f), "utf8")))
    expect(offenders).toEqual([])
  })

  it("finds a decision on a name where there is one (the check above is not vacuous)", () => {
    const sample = [
      `if (envelope.event === "posted") deliver()`,
      `switch (envelope.event) { case EventNames.UserAdded: break }`,
      `const DROPPABLE = new Set(["typing", "status_change"])`
    ].join("\n")
    expect(nameDecisions("sample.ts", sample).map((found) => found.split(":")[1])).toEqual(["1", "2", "3"])
  })
})

/** An event of each tag whose wire form is read back, and of each tag that shares its Mattermost name with another. */
const samples: { readonly [T in EventTag]?: Extract<DomainEvent, { readonly _tag: T }> } = {
  UserAdded: DomainEvent.UserAdded({ userId: "u", teamId: "t" }),
  UserRemoved: DomainEvent.UserRemoved({ userId: "u", removerId: "r" }),
  RemovedFromChannel: DomainEvent.RemovedFromChannel({ channelId: "c", removerId: "r" }),
  DirectAdded: DomainEvent.DirectAdded({ creatorId: "u", teammateId: "v" }),
  GroupAdded: DomainEvent.GroupAdded({ teammateIds: ["u", "v", "w"] }),
  ChannelCreated: DomainEvent.ChannelCreated({ channelId: "c", teamId: "t" }),
  AddedToTeam: DomainEvent.AddedToTeam({ teamId: "t", userId: "u" }),
  LeaveTeam: DomainEvent.LeaveTeam({ userId: "u", teamId: "t" }),
  SessionEnded: DomainEvent.SessionEnded({ sessionIds: ["s1", "s2"] }),
  ThreadRead: DomainEvent.ThreadRead({
    threadId: "p",
    timestamp: 1,
    unreadMentions: 0,
    unreadReplies: 0,
    previousUnreadMentions: 1,
    previousUnreadReplies: 2,
    channelId: "c"
  }),
  ThreadsAllRead: DomainEvent.ThreadsAllRead({ timestamp: 1 })
}
const sampled = Object.values(samples)

describe("domain events from another node (wire form)", () => {
  it("have their tag back, also where two events share a Mattermost name", () => {
    const byName = new Map<string, Array<string>>()
    for (const [tag, name] of Object.entries(EventNames)) byName.set(name, [...byName.get(name) ?? [], tag])
    const shared = [...byName.values()].filter((tags) => tags.length > 1).flat()
    expect(shared.filter((tag) => !(tag in samples))).toEqual([])
    for (const event of sampled) {
      const { data, event: name } = toWire(event)
      expect(tagOf(name, JSON.parse(JSON.stringify(data))), event._tag).toBe(event._tag)
    }
    expect(tagOf(EventNames.Posted, {})).toBe("Posted")
    expect(tagOf("custom_probe", {})).toBeUndefined()
  })

  it("are decoded typed where a hub reads them (memberships, ended sessions), as they were published", () => {
    expect(membershipEvents.filter((tag) => !decodedFromWire.includes(tag))).toEqual([])
    expect(decodedFromWire.filter((tag) => !(tag in samples))).toEqual([])
    for (const event of sampled.filter((e) => decodedFromWire.includes(e._tag))) {
      const { data } = toWire(event)
      expect(fromWire(event._tag, JSON.parse(JSON.stringify(data)))).toEqual(event)
    }
  })

  it("are not decoded where nobody reads their payload, nor from data that does not match", () => {
    expect(fromWire("Posted", { post: "{}" })).toBeUndefined()
    expect(fromWire("UserAdded", { user_id: 1 })).toBeUndefined()
  })
})

/**
 * Compile-time checks (tsc covers test/): the compiler rejects a domain event's name published with raw data and a
 * wrong payload. Never called.
 */
export const rejectedByTheCompiler = (bus: EventBusService) => [
  // @ts-expect-error a domain event is published typed, never by its Mattermost name
  bus.publish("posted", { post: "{}" }, { channel_id: "c" }),
  // @ts-expect-error a payload missing its fields
  bus.publish(DomainEvent.ChannelViewed({}), { user_id: "u" }),
  // @ts-expect-error a payload of the wrong type
  bus.publish(DomainEvent.StatusChange({ status: 1, userId: "u" }), { user_id: "u" }),
  // @ts-expect-error no such event
  DomainEvent.ChannelViewd({ channelId: "c" })
]

import { Effect, Either, Layer, ManagedRuntime, Option, Redacted, TestClock, TestContext } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Cache, makeMemory, makeRedis } from "../../layers/Cache.ts"
import { hasRedis, redisUrl } from "../support/Databases.ts"
import { safeRedirectPath } from "../../src/sso/Flow.ts"
import { type FlowState, putCode, putState, takeCode, takeState } from "../../src/sso/FlowStore.ts"
import { checkOidcClaims } from "../../src/sso/Identities.ts"
import type { ProviderRow } from "../../src/sso/ProviderConfig.ts"
import { provision, type VerifiedIdentity } from "../../src/sso/Provisioning.ts"
import { mappingsFromJson, type Role, ROLES, roleForGroups } from "../../src/sso/Roles.ts"
import { SsoDirectory } from "../../src/sso/SsoDirectory.ts"
import { firstFreeUsername, usernameBase } from "../../src/sso/Usernames.ts"
import { usernameProblem } from "../../src/users/Validation.ts"
import { createProvider, type SsoHarness, startSsoServer } from "./support/Harness.ts"

/** Property-based tests of the SSO rules that must hold for every input, not just the examples. */

const PROTO_KEYS = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "prototype"]
const group = fc.oneof(fc.constantFrom(...PROTO_KEYS, "admins", "eng", "guests", "ops"), fc.string({ maxLength: 8 }))
const role = fc.constantFrom(...ROLES)
const rank = (r: Role) => ROLES.indexOf(r)
/** A mapping as an admin stores it: JSON text, parsed (so "__proto__" is an own key, as JSON.parse makes it). */
const mapping = fc.array(fc.tuple(group, role), { maxLength: 6 }).map((entries) =>
  mappingsFromJson(JSON.parse(`{${entries.map(([g, r]) => `${JSON.stringify(g)}:${JSON.stringify(r)}`).join(",")}}`)))

describe("role mapping", () => {
  it("is invariant under group order and duplicates, and yields only mapped roles or the default", () => {
    fc.assert(fc.property(fc.array(group, { maxLength: 8 }), mapping, role, fc.infiniteStream(fc.nat()), (groups, map, fallback, seeds) => {
      const expected = roleForGroups(groups, map, fallback)
      const shuffled = [...groups, ...groups.slice(0, 3)].map((g) => [seeds.next().value, g] as const).sort((a, b) => a[0] - b[0]).map(([, g]) => g)
      expect(roleForGroups(shuffled, map, fallback)).toBe(expected)
      const matched = groups.filter((g) => map.has(g)).map((g) => map.get(g)!)
      if (matched.length === 0) expect(expected).toBe(fallback)
      else expect(expected).toBe(matched.reduce((best, r) => (rank(r) < rank(best) ? r : best)))
    }), { numRuns: 500 })
  })

  it("never invents a role from prototype keys or unmapped groups", () => {
    fc.assert(fc.property(fc.array(group, { maxLength: 6 }), mapping, role, (groups, map, fallback) => {
      const unmapped = PROTO_KEYS.filter((k) => !map.has(k))
      expect(roleForGroups([...groups, ...unmapped], map, fallback)).toBe(roleForGroups(groups, map, fallback))
      expect(roleForGroups(unmapped, map, fallback)).toBe(fallback)
    }), { numRuns: 300 })
    expect(roleForGroups(["__proto__"], mappingsFromJson(JSON.parse(`{"__proto__":"system_admin"}`)), "member")).toBe("system_admin")
    expect(roleForGroups(["__proto__", "constructor"], mappingsFromJson({}), "guest")).toBe("guest")
  })

  it("never lowers a matched role when more groups are added", () => {
    fc.assert(fc.property(fc.array(group, { minLength: 1, maxLength: 6 }), fc.array(group, { maxLength: 4 }), mapping, (groups, more, map) => {
      const before = roleForGroups(groups, map, "guest")
      if (!groups.some((g) => map.has(g))) return
      expect(rank(roleForGroups([...groups, ...more], map, "guest"))).toBeLessThanOrEqual(rank(before))
    }), { numRuns: 300 })
  })
})

const nameSource = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.fullUnicodeString({ maxLength: 30 }),
  fc.constantFrom("alice", "Alice", "ALICE", "ａｌｉｃｅ", "Ａｌｉｃｅ", "álice", "admin", "root", "a", "Jane Doe", "x@y", "___", "9lives", "user")
)

describe("username generation", () => {
  it("always yields a valid Mattermost username", () => {
    fc.assert(fc.property(fc.option(nameSource, { nil: undefined }), fc.option(nameSource, { nil: undefined }), fc.option(fc.emailAddress(), { nil: undefined }), (preferredUsername, name, email) => {
      const base = usernameBase({ preferredUsername, name, email })
      expect(usernameProblem(firstFreeUsername(base, new Set()))).toBeUndefined()
    }), { numRuns: 1000 })
  })

  it("stays unique under collisions, including case and full-width variants", () => {
    fc.assert(fc.property(fc.array(nameSource, { minLength: 1, maxLength: 40 }), (names) => {
      const taken = new Set<string>()
      for (const n of names) {
        const chosen = firstFreeUsername(usernameBase({ preferredUsername: n }), taken)
        expect(usernameProblem(chosen)).toBeUndefined()
        expect(taken.has(chosen.toLowerCase())).toBe(false)
        taken.add(chosen.toLowerCase())
      }
    }), { numRuns: 300 })
    const taken = new Set<string>()
    const names = ["alice", "Alice", "ALICE", "ａｌｉｃｅ"].map((n) => {
      const chosen = firstFreeUsername(usernameBase({ preferredUsername: n }), taken)
      taken.add(chosen)
      return chosen
    })
    expect(names).toEqual(["alice", "alice1", "alice2", "alice3"])
  })
})

describe("redirect targets", () => {
  it("accepts only paths that stay on this origin", () => {
    const candidate = fc.oneof(fc.webUrl(), fc.string(), fc.string().map((s) => `/${s}`), fc.string().map((s) => `//${s}`), fc.constantFrom("/\\evil", "/%2F%2Fevil", "\\\\evil", "/\t/evil", "http:/evil"))
    fc.assert(fc.property(candidate, (raw) => {
      const result = safeRedirectPath(raw)
      if (Option.isSome(result)) {
        expect(new URL(result.value, "https://site.example").origin).toBe("https://site.example")
        expect(result.value.startsWith("/") && !result.value.startsWith("//")).toBe(true)
      }
    }), { numRuns: 1000 })
    fc.assert(fc.property(fc.webUrl(), (url) => {
      expect(Option.isNone(safeRedirectPath(url))).toBe(true)
    }))
  })
})

const row = (overrides: Partial<ProviderRow>): ProviderRow => ({
  id: "00000000-0000-4000-8000-000000000001",
  provider_key: "p",
  provider_type: "oidc",
  display_name: "P",
  issuer_url: "https://idp.example",
  client_id: "c",
  client_secret_encrypted: "",
  is_active: true,
  auto_provision: true,
  default_role: "member",
  groups_claim: "groups",
  role_mappings: null,
  allow_domains: null,
  settings: {},
  last_test_at: null,
  last_test_success: false,
  create_at: 0,
  update_at: 0,
  ...overrides
})

describe("verified email", () => {
  it("never lets an identity through unless email_verified is the boolean true", () => {
    const notTrue = fc.oneof(fc.constantFrom("true", 1, "yes", null, undefined, false, {}, [true]), fc.anything().filter((v) => v !== true))
    fc.assert(fc.property(notTrue, fc.emailAddress(), fc.constantFrom("oidc", "webidp") as fc.Arbitrary<"oidc" | "webidp">, (verified, email, type) => {
      const result = Effect.runSync(Effect.either(checkOidcClaims(row({ provider_type: type }), { sub: "s", email, email_verified: verified })))
      expect(Either.isLeft(result)).toBe(true)
    }), { numRuns: 500 })
  })

  it("admits a webidp email only in a listed domain with a matching hd", () => {
    const domain = fc.constantFrom("corp.test", "evil.test", "corp.test.evil.test", "CORP.test", "sub.corp.test")
    fc.assert(fc.property(fc.constantFrom("a", "x@corp.test", ""), domain, fc.option(domain, { nil: undefined }), (local, emailDomain, hd) => {
      const email = `${local}@${emailDomain}`
      const result = Effect.runSync(Effect.either(checkOidcClaims(row({ provider_type: "webidp", allow_domains: ["corp.test"] }), { sub: "s", email, email_verified: true, hd })))
      const admitted = Either.isRight(result)
      const expected = local !== "" && !local.includes("@") && emailDomain.toLowerCase() === "corp.test" && hd?.toLowerCase() === "corp.test"
      expect(admitted).toBe(expected)
    }), { numRuns: 300 })
  })
})

const memoryCache = Layer.effect(Cache, makeMemory)
/** One runtime for all runs: a memory cache on the TestClock, which only ever moves forward. */
const testRuntime = ManagedRuntime.make(Layer.provideMerge(memoryCache, TestContext.TestContext))
const runTest = <A, E>(effect: Effect.Effect<A, E, Cache>) => testRuntime.runPromise(effect)

const flowState = fc.record({
  provider_id: fc.uuid(),
  provider_key: fc.stringMatching(/^[a-z0-9-]{1,12}$/),
  redirect_uri: fc.constantFrom("/", "/channels/x"),
  code_verifier: fc.string({ minLength: 43, maxLength: 43 }),
  nonce: fc.string({ minLength: 1, maxLength: 20 })
}) as fc.Arbitrary<FlowState>

describe("OAuth state", () => {
  it("is accepted once, untouched and fresh; any tampering or an age of five minutes refuses it", async () => {
    await fc.assert(fc.asyncProperty(flowState, fc.nat(), fc.char(), fc.integer({ min: 0, max: 10 * 60_000 }), async (state, index, replacement, ageMs) => {
      await runTest(Effect.gen(function*() {
        const value = yield* putState(state)
        const i = index % value.length
        const tampered = value.slice(0, i) + replacement + value.slice(i + 1)
        if (tampered !== value) expect(Option.isNone(yield* takeState(tampered))).toBe(true)
        yield* TestClock.adjust(ageMs)
        const taken = yield* takeState(value)
        if (ageMs >= 5 * 60_000) expect(Option.isNone(taken)).toBe(true)
        else expect(taken).toEqual(Option.some(state))
        expect(Option.isNone(yield* takeState(value))).toBe(true)
      }))
    }), { numRuns: 200 })
  })
})

const singleUse = (layer: Layer.Layer<Cache, unknown>) =>
  fc.asyncProperty(
    fc.integer({ min: 1, max: 4 }),
    fc.array(fc.tuple(fc.nat({ max: 5 }), fc.nat({ max: 4 })), { minLength: 1, maxLength: 16 }),
    async (codes, attempts) => {
      await Effect.runPromise(Effect.gen(function*() {
        const issued = yield* Effect.forEach(Array.from({ length: codes }), (_, i) => putCode("exchange", { user_id: `u${i}`, redirect_uri: "/" }))
        const targets = attempts.map(([n, delay]) => [n < codes ? issued[n] : `made-up-${n}`, delay] as const)
        // All attempts run concurrently, each after a generated number of yields: the interleaving is the input.
        const results = yield* Effect.forEach(
          targets,
          ([code, delay]) =>
            Effect.zipRight(
              Effect.forEach(Array.from({ length: delay }), () => Effect.yieldNow(), { discard: true }),
              Effect.map(takeCode("exchange", code), (r) => [code, r._tag] as const)
            ),
          { concurrency: "unbounded" }
        )
        for (const code of new Set(targets.map(([c]) => c))) {
          const outcomes = results.filter(([c]) => c === code).map(([, tag]) => tag)
          if (code.startsWith("made-up")) expect(outcomes.every((t) => t === "Unknown")).toBe(true)
          else {
            expect(outcomes.filter((t) => t === "Granted")).toHaveLength(1)
            expect(outcomes.filter((t) => t !== "Granted").every((t) => t === "Spent")).toBe(true)
          }
        }
      }).pipe(Effect.provide(layer)) as Effect.Effect<void, unknown, never>)
    }
  )

describe("exchange codes", () => {
  it("are granted exactly once under any interleaving (memory cache)", async () => {
    await fc.assert(singleUse(memoryCache), { numRuns: 100 })
  })

  it.skipIf(!hasRedis())("are granted exactly once under any interleaving (Redis)", async () => {
    await fc.assert(singleUse(Layer.scoped(Cache, makeRedis(Redacted.make(redisUrl())))), { numRuns: 25 })
  })
})

describe("provisioning", () => {
  let h: SsoHarness
  let providers: Array<ProviderRow>
  beforeAll(async () => {
    h = await startSsoServer()
    const ids = []
    for (const key of ["pa", "pb"]) {
      ids.push((await createProvider(h, { provider_key: key, provider_type: "oidc", display_name: key, issuer_url: "https://idp.example", client_id: "c", client_secret: "s-prop-1" })).id)
    }
    providers = await h.server.runtime.runPromise(Effect.forEach(ids, (id) => Effect.flatMap(SsoDirectory, (d) => Effect.map(d.byId(id), Option.getOrThrow))))
  })
  afterAll(() => h?.close())

  it("keeps (provider, subject) on one account forever and never puts two subjects of a provider on one account", async () => {
    let run = 0
    const step = fc.record({
      provider: fc.nat({ max: 1 }),
      subject: fc.constantFrom("s1", "s2", "s3"),
      email: fc.constantFrom("ann", "ANN", "ben", "cat"),
      name: fc.constantFrom("ann", "Ann", "ＡＮＮ", "admin", "ben")
    })
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
      run += 1
      const ns = `r${run}x${Date.now().toString(36)}`
      const owner = new Map<string, string>()
      for (const s of steps) {
        const provider = providers[s.provider]
        const identity: VerifiedIdentity = {
          subject: `${ns}-${s.subject}`,
          email: `${s.email}.${ns}@example.com`,
          preferredUsername: s.name,
          groups: []
        }
        const result = await h.server.runtime.runPromise(Effect.either(provision(provider, identity)))
        const key = `${provider.id}/${identity.subject}`
        if (Either.isLeft(result)) {
          // Refused only because the email's account already has another subject of this provider.
          expect((result.left as { message?: string }).message).toBe("This account is already linked to another identity at this provider")
          expect(owner.has(key)).toBe(false)
          continue
        }
        const userId = result.right.user.id
        if (owner.has(key)) expect(userId).toBe(owner.get(key))
        owner.set(key, userId)
        expect(usernameProblem(result.right.user.username)).toBeUndefined()
      }
      for (const provider of providers) {
        const users = [...owner].filter(([k]) => k.startsWith(`${provider.id}/`)).map(([, u]) => u)
        expect(new Set(users).size).toBe(users.length)
      }
    }), { numRuns: 20 })
  })
})

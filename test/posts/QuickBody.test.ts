import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { CreatePostBody, quickCreatePostBody } from "../../src/posts/CreatePost.ts"

// The hand-written decoder of POST /posts's common body (issue 10) must give exactly the Schema's value when it
// answers, and leave to the Schema every body it does not decode the same way (all refusals included).
const schema = Schema.decodeUnknownEither(CreatePostBody)

/** Each body, and whether the hand-written decoder answers it (false: the Schema decodes or refuses it). */
const bodies: ReadonlyArray<readonly [string, boolean]> = [
  [`{"channel_id":"c"}`, true],
  [`{"channel_id":"c","message":"hello"}`, true],
  [`{"channel_id":"c","message":"hi","root_id":"r","file_ids":["a","b"],"props":{"x":1,"y":{"z":[1]}},"pending_post_id":"p","type":""}`, true],
  [`{"channel_id":"c","message":"hi","user_id":"someone","create_at":5,"id":"x","extra":null}`, true],
  [`{"channel_id":"c","metadata":null}`, false],
  [`{"channel_id":"c","metadata":{"priority":{"priority":"urgent"}}}`, false],
  [`{"channel_id":"c","metadata":{}}`, false],
  [`{"channel_id":"c","props":{"__proto__":{"a":1}}}`, false],
  [`{"channel_id":"c","props":[]}`, false],
  [`{"channel_id":"c","props":null}`, false],
  [`{"channel_id":"c","file_ids":null}`, false],
  [`{"channel_id":"c","file_ids":[1]}`, false],
  [`{"channel_id":"c","file_ids":"a"}`, false],
  [`{"channel_id":"c","message":null}`, false],
  [`{"channel_id":"c","message":5}`, false],
  [`{"channel_id":"c","root_id":false}`, false],
  [`{"channel_id":"c","type":"system_join_channel"}`, true],
  [`{"channel_id":5}`, false],
  [`{"message":"no channel"}`, false],
  [`[]`, false],
  [`null`, false],
  [`"text"`, false],
  [`42`, false]
]

describe("quickCreatePostBody", () => {
  for (const [text, handled] of bodies) {
    it(`${handled ? "decodes as the Schema does" : "leaves to the Schema"} ${text}`, () => {
      const raw = JSON.parse(text)
      const quick = quickCreatePostBody(raw)
      if (!handled) return expect(quick).toBeUndefined()
      expect(quick).toStrictEqual(Either.getOrThrow(schema(raw)))
    })
  }

  it("answers the common bodies itself", () => {
    expect(quickCreatePostBody(JSON.parse(`{"channel_id":"c","message":"hello","props":{}}`))).toStrictEqual({
      channel_id: "c", message: "hello", root_id: "", file_ids: [], props: {}, pending_post_id: "", type: ""
    })
    expect(quickCreatePostBody(JSON.parse(`{"channel_id":"c","metadata":{"priority":{"priority":"urgent"}}}`))).toBeUndefined()
    expect(quickCreatePostBody(JSON.parse(`{"channel_id":"c","message":null}`))).toBeUndefined()
  })
})

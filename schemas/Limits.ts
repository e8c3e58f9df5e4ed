import { Schema } from "effect"

/**
 * The most items a list a client sends may hold, in one place (docs/architecture.md, "Bounded input"). Mattermost's
 * own limit where it has one; otherwise one no client comes near (the official web and mobile apps ask for statuses
 * and profiles in pages of a few hundred) and small enough that the statement it becomes stays far from PostgreSQL's
 * 65,535 bind parameters. A longer list is a 400 at decode time, before any work; src/http/StorableInput.ts holds
 * the backstop for lists nested where no Schema names them.
 */
export const MaxItems = {
  /** POST /users/ids, /users/usernames, /users/status/ids and the socket's get_statuses_by_ids. */
  userIds: 1000,
  /** POST /posts/ids (Mattermost: 1000). */
  postIds: 1000,
  /** POST /posts/ids/reactions. */
  reactionPostIds: 200,
  /** POST /channels/stats/member_count. */
  channelIds: 200,
  /** POST /emoji/names (Mattermost's GetEmojisByNamesMax). */
  emojiNames: 200,
  /** POST /roles/names (Mattermost's GetRolesByNamesMax). */
  roleNames: 100,
  /** PUT and POST /users/{id}/preferences(/delete). */
  preferences: 1000,
  /** Attachments of a post made by an integration (webhooks, command responses). */
  attachments: 100,
  /** An integration's command response's extra responses. */
  extraResponses: 20,
  /** An interactive dialog's elements, and one select element's options. */
  dialogElements: 100,
  dialogOptions: 1000,
  /** An outgoing webhook's trigger words and callback URLs. */
  triggerWords: 100,
  callbackUrls: 100
} as const

/** An array of at most `max` items; the 400 names the limit. */
export const ListOf = <A, I, R>(item: Schema.Schema<A, I, R>, max: number) =>
  Schema.Array(item).pipe(Schema.maxItems(max, { message: () => `at most ${max} items` }))

/**
 * Search text. Post and file search (`terms`): at most 4,096 characters and 64 terms (words, "phrases", prefixes*,
 * #hashtags, -exclusions and from:/in:/ext: values together); each term is one tsquery or one lookup, all compiled
 * into one statement, so the bound keeps that statement small (5,000 words once nested past PostgreSQL's stack
 * depth). Mattermost bounds search only by its request size; 64 is far more than anyone types, and a longer paste is
 * refused with a 400 rather than searched for a subset of its words (which would answer something else). User search
 * and autocomplete (`term`, `name`): at most 256 characters, of which the first 8 distinct words are matched (every
 * word narrows the result, so a ninth can only have narrowed it further: the answer is the same people or more,
 * still filtered by who the caller may see and capped by the limit).
 */
export const SearchLimits = {
  termsLength: 4096,
  terms: 64,
  userTermLength: 256,
  userTermWords: 8
} as const

/** A free-text parameter of at most `max` characters. */
export const TextOf = (max: number) => Schema.String.pipe(Schema.maxLength(max, { message: () => `at most ${max} characters` }))

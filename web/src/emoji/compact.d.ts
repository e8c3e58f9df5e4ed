/**
 * The emoji set made at build time by web/emoji-data.mjs (an esbuild plugin): categories, then entries of
 * [unified code points, short names joined by spaces, category index, keywords, flags: 1 skin tones apply,
 * 2 newer than Emoji 15.0].
 */
declare module "emoji-data:compact" {
  const data: [Array<string>, Array<[string, string, number, string, number]>]
  export default data
}

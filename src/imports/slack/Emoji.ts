/**
 * Slack's emoji names where Mattermost spells the same emoji differently. Slack names emoji after the Unicode names
 * (iamcal's emoji-data: `face_with_rolling_eyes`, `man-shrugging`) and keeps a few of its own (`simple_smile`);
 * Mattermost uses the shorter gemoji names (`roll_eyes`, `man_shrugging`, `slightly_smiling_face`). Names that are the
 * same on both sides, and custom emoji, pass unchanged. Skin tones (`+1::skin-tone-3`) are dropped: the reaction or
 * `:name:` keeps the emoji itself.
 */
const RENAMED: Record<string, string> = {
  simple_smile: "slightly_smiling_face",
  white_frowning_face: "frowning_face",
  face_with_rolling_eyes: "roll_eyes",
  the_horns: "metal",
  sign_of_the_horns: "metal",
  hand_with_index_and_middle_fingers_crossed: "crossed_fingers",
  face_palm: "facepalm",
  robot_face: "robot",
  "star-struck": "star_struck",
  grinning_face_with_star_eyes: "star_struck",
  grinning_face_with_one_large_and_one_small_eye: "zany_face",
  face_with_finger_covering_closed_lips: "shushing_face",
  shocked_face_with_exploding_head: "exploding_head",
  serious_face_with_symbols_covering_mouth: "cursing_face",
  face_with_open_mouth_vomiting: "vomiting_face",
  face_with_monocle: "monocle_face",
  face_with_cowboy_hat: "cowboy_hat_face",
  spiral_calendar_pad: "spiral_calendar",
  spiral_note_pad: "spiral_notepad",
  lower_left_ballpoint_pen: "pen",
  thinking_face: "thinking",
  hugging_face: "hugs"
}

const SKIN_TONE = /::skin-tone-\d$/
// Slack's gendered variants are hyphenated ("woman-facepalming", "male-technologist"); Mattermost's use "_" and man/woman.
const GENDERED = /^(man|woman|male|female)-(.+)$/

export const mattermostEmoji = (slackName: string): string => {
  const name = slackName.replace(SKIN_TONE, "")
  const renamed = RENAMED[name]
  if (renamed !== undefined) return renamed
  const gendered = GENDERED.exec(name)
  if (gendered !== null) return `${gendered[1] === "male" ? "man" : gendered[1] === "female" ? "woman" : gendered[1]}_${gendered[2].replaceAll("-", "_")}`
  return name
}

/** `:name:` (with an optional `:skin-tone-N:`) in a message's text, renamed the same way. */
export const renameEmojiInText = (text: string) =>
  text.replace(/:([a-z0-9_+'-]+):(:skin-tone-\d:)?/g, (whole, name: string) => {
    const renamed = mattermostEmoji(name)
    return renamed === name && !whole.includes("::skin-tone-") ? whole : `:${renamed}:`
  })

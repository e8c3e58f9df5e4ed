/**
 * The emoji the picker offers and the :name: shortcodes rendered as characters: a short list of the common ones under
 * Mattermost's names (the full Mattermost set is ~1,800 entries and would double the bundle; reactions with other
 * names still show as :name:).
 */
export const EMOJI: Record<string, string> = {
  "+1": "👍", "-1": "👎", thumbsup: "👍", thumbsdown: "👎", smile: "😄", smiley: "😃", grinning: "😀", laughing: "😆",
  joy: "😂", rofl: "🤣", wink: "😉", blush: "😊", heart_eyes: "😍", kissing_heart: "😘", thinking_face: "🤔",
  neutral_face: "😐", expressionless: "😑", unamused: "😒", roll_eyes: "🙄", grimacing: "😬", relieved: "😌",
  pensive: "😔", sleepy: "😪", sleeping: "😴", confused: "😕", worried: "😟", cry: "😢", sob: "😭", scream: "😱",
  angry: "😠", rage: "😡", sunglasses: "😎", nerd_face: "🤓", slightly_smiling_face: "🙂", upside_down_face: "🙃",
  hugging_face: "🤗", star_struck: "🤩", partying_face: "🥳", heart: "❤️", broken_heart: "💔", sparkling_heart: "💖",
  fire: "🔥", star: "⭐", sparkles: "✨", tada: "🎉", confetti_ball: "🎊", rocket: "🚀", eyes: "👀", wave: "👋",
  clap: "👏", pray: "🙏", muscle: "💪", ok_hand: "👌", raised_hands: "🙌", point_up: "☝️", v: "✌️", handshake: "🤝",
  white_check_mark: "✅", heavy_check_mark: "✔️", x: "❌", warning: "⚠️", question: "❓", exclamation: "❗", bulb: "💡",
  memo: "📝", calendar: "📅", coffee: "☕", beer: "🍺", pizza: "🍕", cake: "🍰", sun_with_face: "🌞", rainbow: "🌈",
  zap: "⚡", snowflake: "❄️", bug: "🐛", lock: "🔒", key: "🔑", link: "🔗", hourglass: "⌛", alarm_clock: "⏰",
  speech_balloon: "💬", calendar_spiral: "🗓️", palm_tree: "🌴", house: "🏠", car: "🚗", airplane: "✈️",
  100: "💯", skull: "💀", ghost: "👻", robot: "🤖", see_no_evil: "🙈", hushed: "😯", sweat_smile: "😅", innocent: "😇"
}

export const emojiChar = (name: string) => EMOJI[name]

export const searchEmoji = (term: string, limit = 48) => {
  const t = term.toLowerCase().replace(/:/g, "")
  return Object.keys(EMOJI).filter((n) => n.includes(t)).slice(0, limit)
}

import { Schema } from "effect"

/** The PreferenceType of @mattermost/types, keyed by (user_id, category, name). */
export const Preference = Schema.Struct({
  user_id: Schema.String,
  category: Schema.String,
  name: Schema.String,
  value: Schema.String
})
export type Preference = typeof Preference.Type

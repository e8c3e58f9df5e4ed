import { Schema } from "effect"

/** OpenGraphMetadataImage of @mattermost/types: go-opengraph's image, its optional fields left out when empty. */
export const OpenGraphImage = Schema.Struct({
  url: Schema.String,
  secure_url: Schema.optionalWith(Schema.String, { exact: true }),
  type: Schema.optionalWith(Schema.String, { exact: true }),
  width: Schema.optionalWith(Schema.Number, { exact: true }),
  height: Schema.optionalWith(Schema.Number, { exact: true })
})

/**
 * OpenGraphMetadata of @mattermost/types, as POST /api/v4/opengraph answers it and `metadata.embeds[].data` carries
 * it (src/links/OpenGraph.ts); `{"url": ""}` alone when a page has none.
 */
export const OpenGraph = Schema.Struct({
  type: Schema.optionalWith(Schema.String, { exact: true }),
  url: Schema.String,
  title: Schema.optionalWith(Schema.String, { exact: true }),
  description: Schema.optionalWith(Schema.String, { exact: true }),
  site_name: Schema.optionalWith(Schema.String, { exact: true }),
  images: Schema.optionalWith(Schema.Array(OpenGraphImage), { exact: true })
})

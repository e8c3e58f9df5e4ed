-- A post's link preview (issue 28): the OpenGraph embed of its first link and the dimensions of that embed's
-- images, as post metadata carries them ({"embeds": [...], "images": {...}}); NULL while none was made. Written in
-- the background after the post is created (src/links/LinkPreviewJob.ts). No default, so adding it rewrites nothing.
ALTER TABLE posts ADD COLUMN link_preview jsonb;

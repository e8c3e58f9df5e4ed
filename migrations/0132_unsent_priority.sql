-- Drafts and scheduled posts keep the priority their post will carry (issue 15, post priority); null when none.
ALTER TABLE drafts ADD COLUMN priority jsonb;
ALTER TABLE scheduled_posts ADD COLUMN priority jsonb;

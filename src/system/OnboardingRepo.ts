import { Effect, Schema } from "effect"
import { Db } from "../../layers/Db.ts"
import { JsonObject, rows } from "../../layers/Rows.ts"

/**
 * The first administrator's setup (Mattermost's `FirstAdminSetupComplete` and `OrganizationName` system rows), kept in
 * server_config's "onboarding" section: whether it was completed, and the organization it named.
 */
export const SECTION = "onboarding"

const Sections = rows("OnboardingRepo section", Schema.Struct({ value: JsonObject }))

export const isComplete = Effect.flatMap(Db, (db) =>
  Effect.map(
    db.read(db.sql`SELECT value FROM server_config WHERE section = ${SECTION}`.pipe(Sections)),
    (found) => found[0]?.value.complete === true
  ))

/**
 * Marks the setup complete with the organization's name, and names the site after the organization while no
 * administrator has named it (the `site` section has no site_name yet), in one transaction.
 */
export const complete = (organization: string, siteName: string | undefined, now: number) =>
  Effect.flatMap(Db, (db) =>
    db.transaction(Effect.gen(function*() {
      yield* db.sql`
        INSERT INTO server_config (section, value, update_at)
        VALUES (${SECTION}, ${JSON.stringify({ complete: true, organization })}::jsonb, ${now})
        ON CONFLICT (section) DO UPDATE SET value = server_config.value || EXCLUDED.value, update_at = EXCLUDED.update_at`
      if (siteName === undefined) return
      yield* db.sql`
        INSERT INTO server_config (section, value, update_at)
        VALUES ('site', ${JSON.stringify({ site_name: siteName })}::jsonb, ${now})
        ON CONFLICT (section) DO UPDATE SET value = server_config.value || EXCLUDED.value, update_at = EXCLUDED.update_at
        WHERE server_config.value->>'site_name' IS NULL`
    })))

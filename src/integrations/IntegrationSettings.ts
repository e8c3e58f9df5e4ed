import { Effect, Schema } from "effect"
import { Db, type DbError } from "../../layers/Db.ts"
import { JsonObject, rows } from "../../layers/Rows.ts"

/**
 * The integration switches of Mattermost's ServiceSettings, kept in server_config's "integrations" section and
 * changed through PUT /config. Read per request (a primary-key lookup) so that a change shows on every node at once.
 * Only switches for features this server has are here: config/client reports the others off.
 */
export interface IntegrationSwitches {
  /** Personal access tokens; on by default, and by default only system admins may create them. */
  readonly enableUserAccessTokens: boolean
  /** Whether system admins may create bot accounts (off by default, as in Mattermost). */
  readonly enableBotAccountCreation: boolean
  readonly enableIncomingWebhooks: boolean
  readonly enableOutgoingWebhooks: boolean
  /** Whether a webhook's or its payload's username and icon replace the poster's (off by default, as in Mattermost). */
  readonly enablePostUsernameOverride: boolean
  readonly enablePostIconOverride: boolean
  /** Custom slash commands (on by default, as in Mattermost); built-in commands work either way. */
  readonly enableCommands: boolean
}

/** Mattermost's setting names, the section's keys, and the defaults. */
export const SWITCHES = {
  EnableUserAccessTokens: { key: "enable_user_access_tokens", fallback: true },
  EnableBotAccountCreation: { key: "enable_bot_account_creation", fallback: false },
  EnableIncomingWebhooks: { key: "enable_incoming_webhooks", fallback: true },
  EnableOutgoingWebhooks: { key: "enable_outgoing_webhooks", fallback: true },
  EnablePostUsernameOverride: { key: "enable_post_username_override", fallback: false },
  EnablePostIconOverride: { key: "enable_post_icon_override", fallback: false },
  EnableCommands: { key: "enable_commands", fallback: true }
} as const satisfies Record<string, { key: string; fallback: boolean }>

const Sections = rows("IntegrationSettings section", Schema.Struct({ value: JsonObject }))

export const integrationSwitches: Effect.Effect<IntegrationSwitches, DbError, Db> = Effect.flatMap(Db, (db) =>
  Effect.map(
    db.read(db.sql`SELECT value FROM server_config WHERE section = 'integrations'`.pipe(Sections)),
    (rows) => {
      const value = rows[0]?.value ?? {}
      const on = (s: { key: string; fallback: boolean }) => typeof value[s.key] === "boolean" ? value[s.key] as boolean : s.fallback
      return {
        enableUserAccessTokens: on(SWITCHES.EnableUserAccessTokens),
        enableBotAccountCreation: on(SWITCHES.EnableBotAccountCreation),
        enableIncomingWebhooks: on(SWITCHES.EnableIncomingWebhooks),
        enableOutgoingWebhooks: on(SWITCHES.EnableOutgoingWebhooks),
        enablePostUsernameOverride: on(SWITCHES.EnablePostUsernameOverride),
        enablePostIconOverride: on(SWITCHES.EnablePostIconOverride),
        enableCommands: on(SWITCHES.EnableCommands)
      }
    }
  ))

/** The first word of every admin command (src/cli/Admin.ts holds the commands themselves). */
export const ADMIN_COMMANDS: ReadonlyArray<string> = ["user", "session", "team", "secret", "health"]

/** Flags of the Mattermost bulk import and export (src/cli/Transfer.ts). */
export const TRANSFER_FLAGS: ReadonlyArray<string> = ["--import", "--import-slack", "--export"]

export const HELP = `the-service: a self-hosted team chat server that Mattermost clients connect to.

Usage:
  node dist/main.js [flag]                (the production build: npm run build)
  node --import tsx src/main.ts [flag]    (the same from the sources)

Flags:
  (none)           serve HTTP and WebSocket on SERVICE_HOST:SERVICE_PORT (default 0.0.0.0:3000)
  --check-config   load the configuration, list every problem with its variable and a hint, print a redacted
                   summary when valid; exit 0 when valid, 1 otherwise
  --migrate-only   apply pending database migrations and exit
  --import FILE [--dry-run]
                   import a Mattermost bulk export (JSONL, or a zip with the JSONL and its data/ files, as mmctl
                   export create writes it): every line is validated first and each problem printed with its line
                   number (exit 1, nothing imported); --dry-run stops there. Running it twice creates nothing twice
  --import-slack FILE.zip --team NAME [--dry-run]
                   import a Slack workspace export (people, public and private channels, direct and group
                   messages, threads, reactions) into team NAME (created when missing); a broken export is refused
                   naming the entry, nothing imported; the report lists what was left out and why
  --export FILE [--include-password-hashes]
                   export teams, channels, users, posts, direct messages and emoji in the same format: FILE.zip
                   with the files under data/, or FILE.jsonl without them; password hashes only when asked (a
                   backup that keeps sign-ins), otherwise imported users sign in after a password reset
  --help           print this help

Admin commands (over the database and cache of the same SERVICE_* configuration; USER is an id, a username or an
email; exit 0 done, 1 refused or failed with the reason on stderr, 2 wrong usage):
  user create --username NAME --email EMAIL (--password PASSWORD | --password-stdin) [--system-admin]
              [--first-name F] [--last-name L]
  user make-admin USER             make USER a system admin
  user remove-admin USER           take the system admin role away
  user reset-password USER (--password PASSWORD | --password-stdin)
                                   the sign-up password rules apply; every session of USER ends
  user deactivate USER             deactivate; every session ends and its sockets close
  session list USER                USER's sessions
  session revoke USER [SESSION_ID] end one or every session of USER; their sockets close on every node
                                   (on other nodes through Redis: SERVICE_CACHE_URL)
  team create --name NAME --display-name DISPLAY [--private]
  team add TEAM USER [USER...]     add users to a team (id or name) and its default channels
  secret rotate-jwt                end every session and replace the JWT secret (secrets.json in development;
                                   otherwise set SERVICE_JWT_SECRET anew and restart the nodes)
  secret rotate-encryption-key     re-encrypt every stored secret under SERVICE_NEW_ENCRYPTION_KEY (generated in
                                   development), then set SERVICE_ENCRYPTION_KEY to it and restart the nodes
  health [--url URL]               exit 0 when /api/v1/health/ready of a running server (default
                                   http://127.0.0.1:SERVICE_PORT) answers 200, 1 otherwise

Configuration comes from SERVICE_* environment variables; see README.md for the table.
In production run node directly (not through npm), so that SIGTERM reaches the service and it shuts down cleanly.
`

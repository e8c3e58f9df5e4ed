export const HELP = `the-service: a self-hosted team chat server that Mattermost clients connect to.

Usage:
  node dist/main.js [flag]                (the production build: npm run build)
  node --import tsx src/main.ts [flag]    (the same from the sources)

Flags:
  (none)           serve HTTP and WebSocket on SERVICE_HOST:SERVICE_PORT (default 0.0.0.0:3000)
  --check-config   load the configuration, list every problem with its variable and a hint, print a redacted
                   summary when valid; exit 0 when valid, 1 otherwise
  --migrate-only   apply pending database migrations and exit
  --help           print this help

Configuration comes from SERVICE_* environment variables; see README.md for the table.
In production run node directly (not through npm), so that SIGTERM reaches the service and it shuts down cleanly.
`

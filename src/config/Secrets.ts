import { Effect, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { existsSync } from "node:fs"
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises"
import { resolve } from "node:path"
import type { AppConfigShape, ResolvedConfig } from "../Config.ts"

/**
 * Outside production, unset secrets are generated once and kept in `<data dir>/secrets.json` (mode 0600), so the
 * first `npm start` needs no configuration and sessions survive restarts. Production must set them.
 */
export const SECRETS_FILE = "secrets.json"

interface StoredSecrets {
  readonly jwt_secret: string
  readonly encryption_key: string
}

const generate = () => randomBytes(48).toString("base64url")

export const resolveSecrets = (config: AppConfigShape): Effect.Effect<ResolvedConfig, Error> =>
  Effect.gen(function*() {
    if (Option.isSome(config.jwtSecret) && Option.isSome(config.encryptionKey)) {
      return { ...config, jwtSecretValue: config.jwtSecret.value, encryptionKeyValue: config.encryptionKey.value }
    }
    if (config.isProduction) return yield* Effect.fail(new Error("SERVICE_JWT_SECRET and SERVICE_ENCRYPTION_KEY are required in production"))
    const dir = resolve(config.dataDir)
    const file = resolve(dir, SECRETS_FILE)
    const stored = yield* Effect.tryPromise({
      try: async (): Promise<{ secrets: StoredSecrets; created: boolean }> => {
        if (existsSync(file)) return { secrets: JSON.parse(await readFile(file, "utf8")) as StoredSecrets, created: false }
        await mkdir(dir, { recursive: true })
        const secrets = { jwt_secret: generate(), encryption_key: generate() }
        await writeFile(file, JSON.stringify(secrets, null, 2) + "\n", { mode: 0o600 })
        await chmod(file, 0o600)
        return { secrets, created: true }
      },
      catch: (cause) => new Error(`cannot read or create ${file}: ${String(cause)}`)
    })
    yield* Effect.logWarning(
      stored.created
        ? "generated development secrets (set SERVICE_JWT_SECRET and SERVICE_ENCRYPTION_KEY in production)"
        : "using development secrets from the data directory"
    ).pipe(Effect.annotateLogs({ file }))
    return {
      ...config,
      jwtSecretValue: Option.getOrElse(config.jwtSecret, () => Redacted.make(stored.secrets.jwt_secret)),
      encryptionKeyValue: Option.getOrElse(config.encryptionKey, () => Redacted.make(stored.secrets.encryption_key))
    }
  })

/** Whether a secret comes from `<data dir>/secrets.json` (unset in the environment, outside production). */
export const isStoredSecret = (config: AppConfigShape, which: "jwt_secret" | "encryption_key") =>
  Option.isNone(which === "jwt_secret" ? config.jwtSecret : config.encryptionKey)

/** Replaces one secret in `<data dir>/secrets.json` (key rotation from the command line), keeping the file 0600. */
export const rewriteStoredSecret = (config: AppConfigShape, which: "jwt_secret" | "encryption_key", value: string) =>
  Effect.tryPromise({
    try: async () => {
      const file = resolve(config.dataDir, SECRETS_FILE)
      const stored = JSON.parse(await readFile(file, "utf8")) as StoredSecrets
      await writeFile(file, JSON.stringify({ ...stored, [which]: value }, null, 2) + "\n", { mode: 0o600 })
      await chmod(file, 0o600)
      return file
    },
    catch: (cause) => new Error(`cannot rewrite ${SECRETS_FILE} in ${config.dataDir}: ${String(cause)}`)
  })

/** A new random secret, as generated for development. */
export const generateSecret = generate

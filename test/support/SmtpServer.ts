import { simpleParser } from "mailparser"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { SMTPServer } from "smtp-server"
import { tempDir } from "./Cleanup.ts"

/**
 * A real SMTP server on loopback (smtp-server, the library nodemailer's author keeps for this), so that tests send
 * mail over the wire and read what arrived, parsed by mailparser as a mail client would.
 */
export interface ReceivedMail {
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly subject: string
  readonly text: string
  readonly html: string
  /** Whether the session was encrypted (STARTTLS or implicit TLS) when the message came. */
  readonly secure: boolean
  /** The user that authenticated, if any. */
  readonly user: string | undefined
}

export interface SmtpOptions {
  /** Require this user and password (AUTH PLAIN/LOGIN); without it any client may send. */
  readonly credentials?: { readonly user: string; readonly password: string }
  /** Offer STARTTLS with this certificate (see `selfSignedCert`); without it STARTTLS is not offered. */
  readonly tls?: { readonly key: string; readonly cert: string }
  /** Implicit TLS from the first byte (smtps://). */
  readonly secure?: boolean
  /** Recipients refused with a permanent 550. */
  readonly refuse?: (address: string) => boolean
}

export interface LoopbackSmtp {
  readonly port: number
  /** smtp:// (or smtps://) URL of this server, without credentials. */
  readonly url: string
  readonly received: Array<ReceivedMail>
  /** Connections opened so far (a refused or failed attempt counts too). */
  readonly connections: () => number
  readonly close: () => Promise<void>
}

export const startSmtpServer = async (options: SmtpOptions = {}): Promise<LoopbackSmtp> => {
  const received: Array<ReceivedMail> = []
  let connections = 0
  const server = new SMTPServer({
    secure: options.secure ?? false,
    ...(options.tls === undefined ? { disabledCommands: ["STARTTLS"] } : { key: options.tls.key, cert: options.tls.cert }),
    authOptional: options.credentials === undefined,
    allowInsecureAuth: true,
    logger: false,
    onConnect: (_session, callback) => {
      connections += 1
      callback()
    },
    onAuth: (auth, _session, callback) => {
      const expected = options.credentials
      if (expected !== undefined && auth.username === expected.user && auth.password === expected.password) {
        return callback(null, { user: auth.username })
      }
      callback(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }))
    },
    onRcptTo: (address, _session, callback) => {
      if (options.refuse?.(address.address)) return callback(Object.assign(new Error("No such user"), { responseCode: 550 }))
      callback()
    },
    onData: (stream, session, callback) => {
      simpleParser(stream).then((mail) => {
        received.push({
          from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: mail.subject ?? "",
          text: mail.text ?? "",
          html: typeof mail.html === "string" ? mail.html : "",
          secure: session.secure === true,
          user: typeof session.user === "string" ? session.user : undefined
        })
        callback()
      }, (error: Error) => callback(error))
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const port = (server.server.address() as AddressInfo).port
  return {
    port,
    url: `${options.secure ? "smtps" : "smtp"}://127.0.0.1:${port}`,
    received,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** A throwaway certificate for 127.0.0.1 (openssl), for STARTTLS and smtps:// tests; the client trusts it as its CA. */
export const selfSignedCert = () => {
  const dir = tempDir("smtp-cert-")
  const key = join(dir, "key.pem")
  const cert = join(dir, "cert.pem")
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"
  ], { stdio: "ignore" })
  return { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") }
}

/** The first link to `path` in a mail's text part. */
export const linkIn = (mail: ReceivedMail, path: string) => {
  const match = new RegExp(`https?://\\S*${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\S*`).exec(mail.text)
  if (match === null) throw new Error(`no link to ${path} in the mail "${mail.subject}"`)
  return new URL(match[0])
}

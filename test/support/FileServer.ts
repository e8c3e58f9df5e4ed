import { afterAll, beforeAll } from "vitest"
import { type EventLog, recordEvents } from "../teams/EventLog.ts"
import { newUser } from "./Clients.ts"
import { startServer, type TestServer } from "./TestServer.ts"

export interface FileServer {
  readonly server: TestServer
  readonly log: EventLog
}

/**
 * The one server a test file shares, with its event bus recorded from the start. Registers the file's beforeAll and
 * afterAll; the fields are set once beforeAll has run, so read them inside tests and later hooks. `sysadmin` signs
 * up the server's first account (its system admin) before recording, so tests' own users are plain users.
 */
export const serverForFile = (options: { readonly sysadmin?: boolean } = {}): FileServer => {
  const state: { server?: TestServer; log?: EventLog } = {}
  beforeAll(async () => {
    state.server = await startServer()
    if (options.sysadmin === true) await newUser(state.server.url, "sysadmin")
    state.log = await recordEvents(state.server)
  })
  afterAll(async () => {
    await state.log?.stop()
    await state.server?.close()
  })
  return state as FileServer
}

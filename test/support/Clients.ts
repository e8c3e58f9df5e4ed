import { Client4 } from "@mattermost/client"

/** An official Mattermost Client4 pointed at a test server. */
export const client4 = (url: string, token?: string) => {
  const client = new Client4()
  client.setUrl(url)
  if (token !== undefined) client.setToken(token)
  return client
}

let counter = 0

/** Signs up and logs in a fresh user through Client4; returns the logged-in client and the user. */
export const newUser = async (url: string, prefix = "user") => {
  counter += 1
  const suffix = `${Date.now().toString(36)}${counter}${Math.floor(Math.random() * 1e4)}`
  const username = `${prefix}${suffix}`.toLowerCase().slice(0, 22)
  const password = "correct-horse-battery"
  const client = client4(url)
  await client.createUser({ username, email: `${username}@example.com`, password } as never, "", "")
  const user = await client.login(username, password)
  return { client, user, username, password }
}

/** A name no other test of the run has used (team and channel names must be unique on a server). */
export const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`

/** The status and Mattermost error id of a Client4 call that must fail (the test fails if it succeeds). */
export const failureOf = async (call: Promise<unknown>) => {
  try {
    await call
  } catch (e) {
    const error = e as { status_code: number; server_error_id: string }
    return { status: error.status_code, id: error.server_error_id }
  }
  throw new Error("expected the call to fail")
}

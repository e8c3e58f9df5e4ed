import { signal } from "@preact/signals"
import { useEffect, useState } from "preact/hooks"
import { errorMessage, v1 } from "../app/api.ts"

/**
 * The console's shared state and helpers. Every page talks to the server's own APIs (/api/v4 as Mattermost's System
 * Console does, /api/v1/admin for what is this server's), through `api` (a fetch with the session cookie and the CSRF
 * header; errors carry the server's message).
 */
export const api = v1

/** The last outcome of an action, announced in the page's live region (role status) or alert. */
export const notice = signal("")
export const failure = signal("")

export const clearOutcome = () => {
  notice.value = ""
  failure.value = ""
}

/** Runs an action; its outcome goes to `notice` (with `done`) or `failure` (the server's message). */
export const act = async (run: () => Promise<unknown>, done: string, after?: () => unknown) => {
  clearOutcome()
  try {
    await run()
    await after?.()
    notice.value = done
    return true
  } catch (e) {
    failure.value = errorMessage(e)
    return false
  }
}

/** Loads data for a page, again when `deps` change; `reload` after an action. */
export const useLoad = <T,>(load: () => Promise<T>, deps: Array<unknown> = []) => {
  const [data, setData] = useState<T | null>(null)
  const [error, setError] = useState("")
  const reload = () => load().then((d) => { setData(d); setError("") }, (e) => setError(errorMessage(e)))
  useEffect(() => void reload(), deps)
  return { data, error, reload, setData, setError }
}

/** A value that follows its input after a pause in typing (search boxes: one request per pause, not per key). */
export const useDebounced = <T,>(value: T, ms = 250) => {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms)
    return () => clearTimeout(timer)
  }, [value])
  return settled
}

export const formatDate = (ms: number | undefined) => (ms ? new Date(ms).toLocaleString() : "Never")

export const consolePath = (rest: string) => `/admin_console/${rest}`

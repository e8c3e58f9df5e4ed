import { Client4, WebSocketClient } from "@mattermost/client"

/**
 * The one API client of the app: Mattermost's own Client4 for /api/v4 (the session rides on the httpOnly cookie the
 * server sets; Client4 adds X-Requested-With and the CSRF header), and a small fetch helper for the service's
 * /api/v1 (SSO, administration, health), whose error body is `{ error: { message } }`.
 */
export const client = new Client4()
client.setUrl(location.origin)
client.setIncludeCookies(true)

export const socket = new WebSocketClient({ maxWebSocketRetryTime: 30_000, minWebSocketRetryTime: 1_000, reconnectJitterRange: 2_000 })
export const socketUrl = () => `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/v4/websocket`

export const cookie = (name: string) =>
  document.cookie.split("; ").find((c) => c.startsWith(`${name}=`))?.slice(name.length + 1) ?? ""

export const errorMessage = (e: unknown, fallback = "Something went wrong") => {
  if (e && typeof e === "object" && "message" in e && typeof (e as { message: unknown }).message === "string") {
    return (e as { message: string }).message || fallback
  }
  return fallback
}

export const v1 = async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
  const headers: Record<string, string> = { "x-requested-with": "XMLHttpRequest" }
  const csrf = cookie("MMCSRF")
  if (csrf) headers["x-csrf-token"] = csrf
  if (body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(path, { method, credentials: "same-origin", headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const data = response.status === 204 ? null : await response.json().catch(() => null)
  if (!response.ok) {
    const message = data?.error?.message ?? data?.message ?? `Request failed (${response.status})`
    throw new Error(message)
  }
  return data as T
}

/** Upload with progress (fetch has no upload progress): POST /api/v4/files as multipart, as Client4.uploadFile does. */
export const uploadFile = (channelId: string, file: File, onProgress: (fraction: number) => void) =>
  new Promise<{ file_infos: Array<{ id: string; name: string; mime_type: string }> }>((resolve, reject) => {
    const form = new FormData()
    form.append("channel_id", channelId)
    form.append("files", file, file.name)
    const xhr = new XMLHttpRequest()
    xhr.open("POST", "/api/v4/files")
    xhr.withCredentials = true
    xhr.setRequestHeader("X-Requested-With", "XMLHttpRequest")
    const csrf = cookie("MMCSRF")
    if (csrf) xhr.setRequestHeader("X-CSRF-Token", csrf)
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total)
    xhr.onload = () => {
      let data: any = null
      try {
        data = JSON.parse(xhr.responseText)
      } catch {}
      if (xhr.status >= 200 && xhr.status < 300) resolve(data)
      else reject(new Error(data?.message ?? `Upload failed (${xhr.status})`))
    }
    xhr.onerror = () => reject(new Error("Upload failed: network error"))
    xhr.send(form)
  })

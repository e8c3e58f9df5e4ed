import { statuses, users } from "./state.ts"

/** A person's picture with their status dot; the URL changes with last_picture_update, so a new picture shows at once. */
export const Avatar = ({ userId, size = 32 }: { userId: string; size?: number }) => {
  const user = users.value[userId]
  const status = statuses.value[userId] ?? "offline"
  return (
    <span class="avatar" style={{ width: `${size}px`, height: `${size}px` }}>
      <img src={`/api/v4/users/${userId}/image?_=${user?.last_picture_update ?? 0}`} alt="" width={size} height={size} loading="lazy" />
      <span class={`status ${status}`} title={status} aria-hidden="true" />
    </span>
  )
}

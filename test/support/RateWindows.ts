/**
 * The service's rate limits count fixed one-minute windows. A burst of requests that straddles a minute's end is
 * counted in two windows, so its last request is not refused and the burst proves nothing. `inOneMinute` runs the
 * burst again when that happened (a burst takes seconds, so the next run fits in one minute); `attempt` lets the
 * burst start from a fresh address, whose count is empty.
 */
export const inOneMinute = async <A>(burst: (attempt: number) => Promise<A>): Promise<A> => {
  const minute = () => Math.floor(Date.now() / 60_000)
  for (let attempt = 1; ; attempt++) {
    const started = minute()
    const result = await burst(attempt)
    if (minute() === started || attempt === 3) return result
  }
}

/** Session props derived from the User-Agent, as Mattermost records them (mobile finds its session by props.os). */
export const clientInfo = (userAgent: string) => {
  const ua = userAgent.toLowerCase()
  const os = /android/.test(ua)
    ? "Android"
    : /iphone|ipad|ios/.test(ua)
    ? "iOS"
    : /windows/.test(ua)
    ? "Windows"
    : /mac os|macintosh/.test(ua)
    ? "Mac OS"
    : /linux/.test(ua)
    ? "Linux"
    : ""
  const isMobileApp = /mattermost mobile|mattermost\/[\d.]+ .*(android|ios)|rnbeta|mattermost-mobile/.test(ua)
  const browser = isMobileApp
    ? "Mobile App"
    : /electron|mattermost\//.test(ua)
    ? "Desktop App"
    : /firefox/.test(ua)
    ? "Firefox"
    : /chrome|chromium/.test(ua)
    ? "Chrome"
    : /safari/.test(ua)
    ? "Safari"
    : "Unknown"
  return { os, browser, platform: os, isMobile: isMobileApp || os === "Android" || os === "iOS" }
}

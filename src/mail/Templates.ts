import type { MailMessage } from "../../layers/Mailer.ts"

/**
 * The mails the service sends, each as plain text and HTML from the same words. Every value placed in the HTML is
 * escaped: display names and team names are chosen by users.
 */
const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

interface Layout {
  readonly to: string
  readonly subject: string
  readonly siteName: string
  /** Paragraphs before the button. */
  readonly lead: ReadonlyArray<string>
  readonly action: { readonly label: string; readonly url: string }
  /** Paragraphs after the button. */
  readonly footer: ReadonlyArray<string>
}

const render = (m: Layout): MailMessage => ({
  to: m.to,
  subject: m.subject,
  text: [...m.lead, `${m.action.label}: ${m.action.url}`, ...m.footer, `— ${m.siteName}`].join("\n\n") + "\n",
  html: [
    "<!doctype html><html><body style=\"font-family:sans-serif;line-height:1.5;color:#1f2329\">",
    ...m.lead.map((p) => `<p>${escapeHtml(p)}</p>`),
    `<p><a href="${escapeHtml(m.action.url)}" style="display:inline-block;padding:10px 18px;background:#1c58d9;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(m.action.label)}</a></p>`,
    `<p style="font-size:12px;color:#5d6066">${escapeHtml(m.action.url)}</p>`,
    ...m.footer.map((p) => `<p style="font-size:12px;color:#5d6066">${escapeHtml(p)}</p>`),
    `<p style="font-size:12px;color:#5d6066">— ${escapeHtml(m.siteName)}</p>`,
    "</body></html>"
  ].join("\n")
})

export const passwordReset = (input: { readonly to: string; readonly siteName: string; readonly link: string }): MailMessage =>
  render({
    to: input.to,
    subject: `[${input.siteName}] Reset your password`,
    siteName: input.siteName,
    lead: ["Someone asked to reset the password of your account. Choose a new password with the link below."],
    action: { label: "Reset password", url: input.link },
    footer: ["The link works once, within one hour. If you did not ask for it, ignore this mail: your password stays as it is."]
  })

export const emailVerification = (input: { readonly to: string; readonly siteName: string; readonly link: string }): MailMessage =>
  render({
    to: input.to,
    subject: `[${input.siteName}] Verify your email address`,
    siteName: input.siteName,
    lead: ["Confirm that this address belongs to your account."],
    action: { label: "Verify email", url: input.link },
    footer: ["If you did not create an account, ignore this mail."]
  })

/** The System Console's "Send Test Email": no link to follow, so the plain paragraphs of the layout only. */
export const testEmail = (input: { readonly to: string; readonly siteName: string }): MailMessage => ({
  to: input.to,
  subject: `[${input.siteName}] Testing email settings`,
  text: `It appears your email is set up correctly: this mail came through the server's SMTP settings.\n\n— ${input.siteName}\n`,
  html: [
    "<!doctype html><html><body style=\"font-family:sans-serif;line-height:1.5;color:#1f2329\">",
    "<p>It appears your email is set up correctly: this mail came through the server's SMTP settings.</p>",
    `<p style="font-size:12px;color:#5d6066">— ${escapeHtml(input.siteName)}</p>`,
    "</body></html>"
  ].join("\n")
})

export const teamInvitation = (
  input: { readonly to: string; readonly siteName: string; readonly link: string; readonly inviter: string; readonly team: string }
): MailMessage =>
  render({
    to: input.to,
    subject: `[${input.siteName}] ${input.inviter} invited you to join ${input.team}`,
    siteName: input.siteName,
    lead: [`${input.inviter} invited you to join the team ${input.team}.`],
    action: { label: "Join team", url: input.link },
    footer: ["If you do not know the sender, ignore this mail."]
  })

/** One post in a notification mail. */
export interface NotifiedPost {
  readonly sender: string
  /** The channel's display name; for a direct message, the sender. */
  readonly channel: string
  readonly channelType: string
  readonly createAt: number
  readonly message: string
  readonly link: string
}

const MAX_EXCERPT = 1000

const excerpt = (message: string) => message.length > MAX_EXCERPT ? `${message.slice(0, MAX_EXCERPT)}…` : message

const when = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`

const whereOf = (p: NotifiedPost) =>
  p.channelType === "D" ? "a direct message" : p.channelType === "G" ? "a group message" : p.channel

const subjectOf = (siteName: string, posts: ReadonlyArray<NotifiedPost>) => {
  if (posts.length > 1) return `[${siteName}] You have ${posts.length} new notifications`
  const p = posts[0]
  if (p.channelType === "D") return `[${siteName}] New direct message from @${p.sender}`
  if (p.channelType === "G") return `[${siteName}] New group message from @${p.sender}`
  return `[${siteName}] New message from @${p.sender} in ${p.channel}`
}

/**
 * Mentions, direct messages and followed replies that came while the user was away, several in one mail when they
 * batch them (Mattermost's email batching): each with its sender, place, time, text and a link to the post.
 */
export const notificationDigest = (
  input: { readonly to: string; readonly siteName: string; readonly settingsHint: string; readonly posts: ReadonlyArray<NotifiedPost> }
): MailMessage => {
  const lead = input.posts.length > 1 ? `You have ${input.posts.length} new notifications.` : "You have a new notification."
  const heading = (p: NotifiedPost) => `@${p.sender} in ${whereOf(p)}, ${when(p.createAt)}`
  return {
    to: input.to,
    subject: subjectOf(input.siteName, input.posts),
    text: [
      lead,
      ...input.posts.map((p) => `${heading(p)}:\n${excerpt(p.message)}\nView the message: ${p.link}`),
      input.settingsHint,
      `— ${input.siteName}`
    ].join("\n\n") + "\n",
    html: [
      "<!doctype html><html><body style=\"font-family:sans-serif;line-height:1.5;color:#1f2329\">",
      `<p>${escapeHtml(lead)}</p>`,
      ...input.posts.map((p) =>
        [
          "<div style=\"border-left:3px solid #1c58d9;padding:4px 12px;margin:12px 0\">",
          `<p style="margin:0;font-size:13px;color:#5d6066">${escapeHtml(heading(p))}</p>`,
          `<p style="margin:4px 0;white-space:pre-wrap">${escapeHtml(excerpt(p.message))}</p>`,
          `<p style="margin:0"><a href="${escapeHtml(p.link)}">View the message</a></p>`,
          "</div>"
        ].join("")
      ),
      `<p style="font-size:12px;color:#5d6066">${escapeHtml(input.settingsHint)}</p>`,
      `<p style="font-size:12px;color:#5d6066">— ${escapeHtml(input.siteName)}</p>`,
      "</body></html>"
    ].join("\n")
  }
}

import { act, api } from "./state.ts"

/** "Send test email" (POST /api/v4/email/test): a mail to the admin's own address through the SMTP server in use. */
export default function TestEmail({ smtp }: { smtp: boolean }) {
  return (
    <section aria-labelledby="smtp-title" class="callout">
      <h3 id="smtp-title">SMTP</h3>
      {smtp
        ? (
          <>
            <p class="muted">Mail goes through the SMTP server set by SERVICE_SMTP_URL, from SERVICE_EMAIL_FROM.</p>
            <button type="button" class="secondary" onClick={() => void act(() => api("POST", "/api/v4/email/test", {}), "Test email sent: check your inbox")}>
              Send test email
            </button>
          </>
        )
        : <p class="muted">No SMTP server is set: no email is sent. Set SERVICE_SMTP_URL and SERVICE_EMAIL_FROM, then restart the server.</p>}
    </section>
  )
}

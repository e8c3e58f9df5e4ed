// oidc-provider ships no types; this is the small part the loopback test provider uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http"
  export interface KoaContext {
    path: string
    method: string
    status: number
    body: any
  }
  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): this
    on(event: string, listener: (...args: Array<any>) => void): this
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<any>
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>
    Grant: any
  }
  export default Provider
}

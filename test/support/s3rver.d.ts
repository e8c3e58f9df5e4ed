// s3rver ships no types; only what test/support/S3Server.ts uses.
declare module "s3rver" {
  export default class S3rver {
    constructor(options: Record<string, unknown>)
    run(): Promise<{ address: string; port: number }>
    close(): Promise<void>
  }
}

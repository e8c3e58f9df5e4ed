import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    setupFiles: ["test/support/fileSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Test files share their worker process and its loaded modules (on 2 cores vitest runs one worker): loading the
    // service's modules afresh for each of ~140 files took about 370 s of a CI run's 1,050. Each file still starts
    // its own servers on its own databases. What is process-global is kept per file: @effect/vitest's testers are
    // reset by test/support/fileSetup.ts, the official client's log by test/realtime/Sockets.ts, process.env by the
    // file that sets it; a test about a fresh process's state (Effect's global metrics) starts one of its own.
    isolate: false,
    // expect.poll waits for a condition (never a fixed sleep); its 1 s default is shorter than a busy machine needs for
    // a browser to show what a server did (search results, a background job's preview): a waiting limit, not a delay.
    expect: { poll: { timeout: 10_000 } },
    reporters: ["default"]
  }
})

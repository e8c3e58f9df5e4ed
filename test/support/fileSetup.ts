import { it, makeMethods } from "@effect/vitest"
import { afterAll } from "vitest"
import { runFileCleanups } from "./Cleanup.ts"

// Test files share their worker process (isolate: false in vitest.config.ts), and @effect/vitest's `layer(...)` puts
// its layer's testers (it.effect, it.scoped, ...) on vitest's one `it` object: each file starts from the plain ones,
// which provide the test services (TestClock) again.
makeMethods(it)

// Registered before the file's own hooks, so it runs after them (vitest runs afterAll hooks in reverse order): the
// file's servers and processes are closed first, then its databases, directories and keys are removed.
afterAll(runFileCleanups, 60_000)

import { afterAll } from "vitest"
import { runFileCleanups } from "./Cleanup.ts"

// Registered before the file's own hooks, so it runs after them (vitest runs afterAll hooks in reverse order): the
// file's servers and processes are closed first, then its databases, directories and keys are removed.
afterAll(runFileCleanups, 60_000)

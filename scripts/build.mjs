// `npm run build`: the production artefact in dist/. The server (src/main.ts and everything it imports, lazily loaded
// modes as separate chunks) is bundled by esbuild into ESM, together with the Effect packages (BUNDLED); every other
// package in node_modules stays external (native bindings, and their own files read at run time). What the server
// reads from disk is copied next to the bundle: the SQL migrations (dist/migrations) and the web client's build
// (dist/web). src/Resources.ts finds them there.
// Run with: node dist/main.js (needs node_modules beside dist/, e.g. `npm ci --omit=dev`).
import { cpSync, existsSync, rmSync, writeFileSync } from "node:fs"
import { execFileSync } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import * as esbuild from "esbuild"

/**
 * Packages bundled into dist/ rather than loaded from node_modules: effect, @effect/* and the two small packages
 * @effect/platform builds on, pure ESM spread over about 640 files. Loaded one by one, resolving and compiling them was
 * most of a command's start (`node dist/main.js user create`: 2.0 s, 1.5 s bundled; the server ready in 4.5 s, 3.1 s
 * bundled), and only the parts in use are kept. No external package imports effect, so there is one copy of it.
 */
const BUNDLED = /^(?:effect|@effect\/[^/]+|find-my-way-ts|multipasta)(?:\/|$)/

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const out = join(root, "dist")
const started = performance.now()
const buildDate = execFileSync("date", ["-u"], { env: { ...process.env, LC_ALL: "C" } }).toString().trim()

rmSync(out, { recursive: true, force: true })
// The web client first: the server serves whatever web/dist holds.
execFileSync(process.execPath, [join(root, "web/build.mjs")], { stdio: "inherit" })
if (!existsSync(join(root, "web/dist/index.html"))) throw new Error("web/dist/index.html missing after the web build")

await esbuild.build({
  entryPoints: { main: join(root, "src/main.ts") },
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  plugins: [{
    name: "external-packages",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => BUNDLED.test(args.path) ? undefined : { path: args.path, external: true })
    }
  }],
  sourcemap: "linked",
  chunkNames: "chunk-[hash]",
  // BuildDate in client config: `date -u`, as Mattermost's Makefile takes it (src/system/Version.ts).
  define: { __SERVICE_BUILD__: "true", __SERVICE_BUILD_DATE__: JSON.stringify(buildDate) },
  logLevel: "warning"
})

cpSync(join(root, "migrations"), join(out, "migrations"), { recursive: true })
cpSync(join(root, "web/dist"), join(out, "web"), { recursive: true })
// dist/ is ESM whatever directory it is copied to.
writeFileSync(join(out, "package.json"), JSON.stringify({ type: "module" }) + "\n")
console.log(`[build] dist/ built in ${Math.round(performance.now() - started)} ms: node dist/main.js`)

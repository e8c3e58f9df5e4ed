// Builds the web client (web/src) into web/dist: index.html plus content-hashed files under dist/static/.
// Runs as the root package's `prepare` step, so `npm ci` builds it; esbuild is local, so it works offline in a second.
// `--watch` rebuilds on change while developing.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { emojiDataPlugin } from "./emoji-data.mjs"

const here = dirname(fileURLToPath(import.meta.url))
const out = join(here, "dist")

let esbuild
try {
  esbuild = await import("esbuild")
} catch {
  // An install without development dependencies (npm ci --omit=dev) has no bundler: the API still works and / says
  // how to build the client.
  console.warn("[web] esbuild is not installed (development dependencies omitted?): the web client is not built")
  process.exit(0)
}

const options = {
  entryPoints: { main: join(here, "src/main.tsx") },
  outdir: join(out, "static"),
  bundle: true,
  splitting: true,
  format: "esm",
  target: ["es2022", "chrome111", "firefox115", "safari16"],
  minify: true,
  sourcemap: "linked",
  metafile: true,
  jsx: "automatic",
  jsxImportSource: "preact",
  entryNames: "[name]-[hash]",
  chunkNames: "chunk-[hash]",
  assetNames: "[name]-[hash]",
  loader: { ".svg": "file", ".png": "file", ".woff2": "file" },
  define: { "process.env.NODE_ENV": '"production"' },
  logLevel: "warning",
  legalComments: "linked",
  plugins: [emojiDataPlugin]
}

const writeIndex = (metafile) => {
  const outputs = Object.entries(metafile.outputs)
  const entry = outputs.find(([, o]) => o.entryPoint !== undefined && o.entryPoint.endsWith("main.tsx"))
  if (entry === undefined) throw new Error("no entry output")
  const url = (file) => "/" + relative(out, file).split("\\").join("/")
  const script = url(entry[0])
  const css = entry[1].cssBundle ? url(entry[1].cssBundle) : undefined
  const preloads = (entry[1].imports ?? []).filter((i) => i.kind === "import-statement").map((i) => `<link rel="modulepreload" href="${url(i.path)}">`)
  const template = readFileSync(join(here, "index.html"), "utf8")
  const html = template
    .replace("<!--styles-->", css ? `<link rel="stylesheet" href="${css}">` : "")
    .replace("<!--scripts-->", [...preloads, `<script type="module" src="${script}"></script>`].join(""))
  writeFileSync(join(out, "index.html"), html)
  if (existsSync(join(here, "public"))) {
    for (const name of ["favicon.svg"]) {
      if (existsSync(join(here, "public", name))) writeFileSync(join(out, name), readFileSync(join(here, "public", name)))
    }
  }
}

if (process.argv.includes("--watch")) {
  const ctx = await esbuild.context({
    ...options,
    plugins: [...options.plugins, { name: "index", setup: (b) => b.onEnd((r) => r.metafile && writeIndex(r.metafile)) }]
  })
  await ctx.watch()
  console.log("[web] watching web/src")
} else {
  const started = Date.now()
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  const result = await esbuild.build(options)
  writeIndex(result.metafile)
  console.log(`[web] built web/dist in ${Date.now() - started} ms`)
}

// Builds the served files: dist/v1.js (the main script), dist/banner-v1.js (the banner module,
// loaded only when a banner is shown), dist/banner-v1.css (the banner's stylesheet for browsers
// without constructable stylesheets) and dist/manifest.json (each file's size, gzipped size and
// sha256), then copies them to ../static/web_sdk/, where the service serves them from. The same
// sources and the same esbuild give the same bytes, which `make sdk-check` relies on. Fails when
// a script is over its budget of 8 KB gzipped.
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";

const BUDGET_GZIP_BYTES = 8 * 1024;
const DIST = "dist";
const SERVED = "../static/web_sdk";
const { version } = JSON.parse(readFileSync("package.json", "utf8"));

const common = {
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  platform: "browser",
  legalComments: "none",
  charset: "utf8",
  write: false,
  logLevel: "warning",
};

const text = (result) => result.outputFiles[0].text;

const css = text(
  await esbuild.build({
    ...common,
    entryPoints: ["src/banner/banner.css"],
    format: undefined,
    outfile: "banner.css",
  }),
);
const main = text(
  await esbuild.build({
    ...common,
    entryPoints: ["src/main.ts"],
    outfile: "v1.js",
    define: { __SDK_VERSION__: JSON.stringify(version) },
  }),
);
const banner = text(
  await esbuild.build({
    ...common,
    entryPoints: ["src/banner/entry.ts"],
    outfile: "banner-v1.js",
    define: { __BANNER_CSS__: JSON.stringify(css.trim()) },
  }),
);

const files = { "v1.js": main, "banner-v1.js": banner, "banner-v1.css": css };
const manifest = { version, files: {} };
mkdirSync(DIST, { recursive: true });
let over = false;
for (const [name, content] of Object.entries(files)) {
  const bytes = Buffer.from(content, "utf8");
  const gzipBytes = gzipSync(bytes, { level: 9 }).length;
  manifest.files[name] = {
    bytes: bytes.length,
    gzip_bytes: gzipBytes,
    sha256: createHash("sha256").update(bytes).digest("hex"),
  };
  writeFileSync(`${DIST}/${name}`, bytes);
  console.log(
    `${name.padEnd(14)} ${String(bytes.length).padStart(6)} B  ${String(gzipBytes).padStart(5)} B gzipped`,
  );
  if (name.endsWith(".js") && gzipBytes > BUDGET_GZIP_BYTES) {
    console.error(`${name} is over its budget of ${BUDGET_GZIP_BYTES} B gzipped`);
    over = true;
  }
}
writeFileSync(`${DIST}/manifest.json`, JSON.stringify(manifest, null, 2) + "\n");
if (over) process.exit(1);

mkdirSync(SERVED, { recursive: true });
for (const name of [...Object.keys(files), "manifest.json"])
  copyFileSync(`${DIST}/${name}`, `${SERVED}/${name}`);

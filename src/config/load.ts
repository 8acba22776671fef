/**
 * Daemon configuration from a JSON file, environment variables and command-line flags (in rising
 * precedence), validated against a declared set of options with a clear message for anything
 * missing or malformed. The same table gives `--help` (`formatHelp`).
 *
 * An option marked `secret` can also be read from a file that group and others cannot access
 * (`readSecretFile`, chmod 600): `--<name>-file <path>`, the environment variable `<ENV>_FILE`, or
 * `"<name>-file"` in the config file, so the secret is not on a command line `ps` shows.
 */
import fs from "node:fs";
import { readSecretLine } from "./secret-file";
import { DogeosError } from "../errors";

export type OptionKind = "string" | "integer" | "boolean" | "url";

export interface OptionSpec {
  kind: OptionKind;
  env?: string;
  default?: string | number | boolean;
  required?: boolean;
  min?: number;
  max?: number;
  description: string;
  /** Another name for the option on the command line (`--database` for `--db`). */
  alias?: string;
  /** A secret: also readable from a 0600 file with `--<name>-file` / `<ENV>_FILE`; never shown in help defaults. */
  secret?: true;
}

export class ConfigError extends DogeosError {
  constructor(message: string) {
    super("invalid", "CONFIG_INVALID", message);
  }
}

export type ConfigValues<S extends Record<string, OptionSpec>> = {
  [K in keyof S]: S[K]["kind"] extends "integer" ? number : S[K]["kind"] extends "boolean" ? boolean : string;
};

/** The secret option that `key` (`<name>-file`) reads from a file, if it is one. */
function secretFileOption(spec: Record<string, OptionSpec>, key: string): string | undefined {
  if (!key.endsWith("-file")) return undefined;
  const name = key.slice(0, -"-file".length);
  return spec[name]?.secret ? name : undefined;
}

function knownOptions(spec: Record<string, OptionSpec>): string {
  return Object.entries(spec)
    .flatMap(([key, option]) => (option.secret ? [key, `${key}-file`] : [key]))
    .join(", ");
}

export function loadConfig<S extends Record<string, OptionSpec>>(
  spec: S,
  argv: string[],
  env: NodeJS.ProcessEnv,
): ConfigValues<S> {
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) throw new ConfigError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf("=");
    const written = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const key = Object.entries(spec).find(([, option]) => option.alias === written)?.[0] ?? written;
    if (key !== "config" && !(key in spec) && !secretFileOption(spec, key))
      throw new ConfigError(`unknown option --${key} (known: ${knownOptions(spec)}; --help lists them)`);
    if (eq !== -1) flags[key] = arg.slice(eq + 1);
    else if (key in spec && spec[key].kind === "boolean" && (argv[i + 1] === undefined || argv[i + 1].startsWith("--")))
      flags[key] = "true";
    else {
      const value = argv[++i];
      if (value === undefined) throw new ConfigError(`--${key} needs a value`);
      flags[key] = value;
    }
  }
  let file: Record<string, unknown> = {};
  if (flags.config) {
    try {
      file = JSON.parse(fs.readFileSync(flags.config, "utf8"));
    } catch (error) {
      throw new ConfigError(`cannot read config file ${flags.config}: ${(error as Error).message}`);
    }
    if (typeof file !== "object" || file === null || Array.isArray(file))
      throw new ConfigError(`config file ${flags.config} must hold a JSON object`);
    for (const key of Object.keys(file))
      if (!(key in spec) && !secretFileOption(spec, key))
        throw new ConfigError(`unknown option "${key}" in ${flags.config}`);
  }
  const out: Record<string, unknown> = {};
  for (const [key, option] of Object.entries(spec)) {
    const where = `${key}${option.env ? ` (--${key} or ${option.env})` : ` (--${key})`}`;
    let raw: unknown;
    if (option.secret) {
      // Each source (flags, environment, file) may give the value or a file holding it, not both;
      // the first source that gives either wins, as for every option.
      const fileKey = `${key}-file`;
      const levels: [string, unknown, unknown][] = [
        ["on the command line", flags[key], flags[fileKey]],
        [
          "in the environment",
          option.env ? env[option.env] : undefined,
          option.env ? env[`${option.env}_FILE`] : undefined,
        ],
        [`in ${flags.config}`, file[key], file[fileKey]],
      ];
      for (const [place, value, path] of levels) {
        const hasValue = value !== undefined && value !== "";
        const hasPath = path !== undefined && path !== "";
        if (hasValue && hasPath) throw new ConfigError(`${key} and ${fileKey} are both given ${place}: give one`);
        if (hasValue) {
          raw = value;
          break;
        }
        if (hasPath) {
          try {
            raw = readSecretLine(String(path), `--${fileKey}`);
          } catch (error) {
            throw new ConfigError((error as Error).message);
          }
          break;
        }
      }
      raw ??= option.default;
    } else {
      raw = flags[key] ?? (option.env ? env[option.env] : undefined) ?? file[key] ?? option.default;
    }
    if (raw === undefined || raw === "") {
      if (option.required)
        throw new ConfigError(`missing ${where}${option.secret ? ` or --${key}-file` : ""}: ${option.description}`);
      out[key] = undefined;
      continue;
    }
    switch (option.kind) {
      case "integer": {
        const value = typeof raw === "number" ? raw : Number(raw);
        if (!Number.isInteger(value)) throw new ConfigError(`${where} must be an integer, got "${String(raw)}"`);
        if (option.min !== undefined && value < option.min)
          throw new ConfigError(`${where} must be at least ${option.min}`);
        if (option.max !== undefined && value > option.max)
          throw new ConfigError(`${where} must be at most ${option.max}`);
        out[key] = value;
        break;
      }
      case "boolean":
        if (!([true, false, "true", "false", "1", "0"] as unknown[]).includes(raw))
          throw new ConfigError(`${where} must be true or false`);
        out[key] = (raw as unknown) === true || raw === "true" || raw === "1";
        break;
      case "url":
        try {
          new URL(String(raw));
        } catch {
          // Not quoted: a URL may carry a password.
          throw new ConfigError(`${where} must be a URL`);
        }
        out[key] = String(raw);
        break;
      default:
        out[key] = String(raw);
    }
  }
  return out as ConfigValues<S>;
}

/** True when `argv` asks for help (`--help` or `-h` anywhere). */
export function wantsHelp(argv: string[]): boolean {
  return argv.includes("--help") || argv.includes("-h");
}

export interface HelpText {
  /** One line under the usage line; defaults to none. */
  summary?: string;
  /** What follows the name in the usage line; default "[options]". */
  usage?: string;
}

const KIND_PLACEHOLDER: Record<OptionKind, string> = {
  string: "<text>",
  integer: "<integer>",
  boolean: "[true|false]",
  url: "<url>",
};

/** The `--help` text of a command whose options are `spec`: every option with its kind, environment variable, default and description. */
export function formatHelp(name: string, spec: Record<string, OptionSpec>, help: HelpText = {}): string {
  const lines = [`Usage: ${name} ${help.usage ?? "[options]"}`, ""];
  if (help.summary) lines.push(help.summary, "");
  lines.push("Options (command line > environment > --config file > default):");
  const pad = "      ";
  for (const [key, option] of Object.entries(spec)) {
    lines.push(
      `  --${key}${option.alias ? `, --${option.alias}` : ""} ${KIND_PLACEHOLDER[option.kind]}${option.required ? "  (required)" : ""}`,
    );
    lines.push(`${pad}${option.description}`);
    const facts: string[] = [];
    if (option.env) facts.push(`env ${option.env}`);
    if (option.default !== undefined && !option.secret) facts.push(`default ${JSON.stringify(option.default)}`);
    if (option.min !== undefined && option.max !== undefined) facts.push(`${option.min} to ${option.max}`);
    else if (option.min !== undefined) facts.push(`at least ${option.min}`);
    else if (option.max !== undefined) facts.push(`at most ${option.max}`);
    if (facts.length) lines.push(`${pad}${facts.join("; ")}`);
    if (option.secret) {
      lines.push(`  --${key}-file <file>`);
      lines.push(
        `${pad}reads --${key} from a file only its owner can read (chmod 600)${option.env ? `; env ${option.env}_FILE` : ""}`,
      );
    }
  }
  lines.push("  --config <file>");
  lines.push(`${pad}a JSON object of options by their long names, e.g. {"${Object.keys(spec)[0] ?? "option"}": ...}`);
  lines.push("  -h, --help");
  lines.push(`${pad}prints this help and exits`);
  return `${lines.join("\n")}\n`;
}

let usagePrefix = "";
let defaultSummary: string | undefined;

/**
 * Set by `npx dogeos` before it runs a daemon, so that help's usage line reads `dogeos indexer
 * [options]`, with the command's one-line summary when the daemon gives none.
 */
export function setUsagePrefix(prefix: string, summary?: string): void {
  usagePrefix = prefix;
  defaultSummary = summary;
}

/**
 * A daemon's configuration, or a clear one-line message on stderr and exit status 2 (for the
 * entry points: a misconfigured daemon should say what is wrong and stop, not print a stack).
 * `check` may validate further (e.g. the network name) by throwing. `--help` or `-h` prints the
 * option table (`formatHelp`) on stdout and exits 0.
 */
export function loadDaemonConfig<S extends Record<string, OptionSpec>>(
  name: string,
  spec: S,
  check?: (config: ConfigValues<S>) => void,
  help?: HelpText,
  argv: string[] = process.argv.slice(2),
): ConfigValues<S> {
  if (wantsHelp(argv)) {
    const usageName = usagePrefix && !name.startsWith(`${usagePrefix} `) ? `${usagePrefix} ${name}` : name;
    process.stdout.write(formatHelp(usageName, spec, { summary: defaultSummary, ...help }));
    process.exit(0);
  }
  try {
    const config = loadConfig(spec, argv, process.env);
    check?.(config);
    return config;
  } catch (error) {
    process.stderr.write(`${name}: ${(error as Error).message}\n`);
    process.exit(2);
  }
}

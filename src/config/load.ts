/**
 * Daemon configuration from a JSON file, environment variables and command-line flags (in rising
 * precedence), validated against a declared set of options with a clear message for anything
 * missing or malformed.
 */
import fs from "node:fs";

export type OptionKind = "string" | "integer" | "boolean" | "url";

export interface OptionSpec {
  kind: OptionKind;
  env?: string;
  default?: string | number | boolean;
  required?: boolean;
  min?: number;
  max?: number;
  description: string;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export type ConfigValues<S extends Record<string, OptionSpec>> = { [K in keyof S]: S[K]["kind"] extends "integer" ? number : S[K]["kind"] extends "boolean" ? boolean : string };

export function loadConfig<S extends Record<string, OptionSpec>>(spec: S, argv: string[], env: NodeJS.ProcessEnv): ConfigValues<S> {
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) throw new ConfigError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf("=");
    const key = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (key !== "config" && !(key in spec)) throw new ConfigError(`unknown option --${key} (known: ${Object.keys(spec).join(", ")})`);
    if (eq !== -1) flags[key] = arg.slice(eq + 1);
    else if (key !== "config" && spec[key].kind === "boolean" && (argv[i + 1] === undefined || argv[i + 1].startsWith("--"))) flags[key] = "true";
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
    for (const key of Object.keys(file)) if (!(key in spec)) throw new ConfigError(`unknown option "${key}" in ${flags.config}`);
  }
  const out: Record<string, unknown> = {};
  for (const [key, option] of Object.entries(spec)) {
    const raw = flags[key] ?? (option.env ? env[option.env] : undefined) ?? file[key] ?? option.default;
    const where = `${key}${option.env ? ` (--${key} or ${option.env})` : ` (--${key})`}`;
    if (raw === undefined || raw === "") {
      if (option.required) throw new ConfigError(`missing ${where}: ${option.description}`);
      out[key] = undefined;
      continue;
    }
    switch (option.kind) {
      case "integer": {
        const value = typeof raw === "number" ? raw : Number(raw);
        if (!Number.isInteger(value)) throw new ConfigError(`${where} must be an integer, got "${String(raw)}"`);
        if (option.min !== undefined && value < option.min) throw new ConfigError(`${where} must be at least ${option.min}`);
        if (option.max !== undefined && value > option.max) throw new ConfigError(`${where} must be at most ${option.max}`);
        out[key] = value;
        break;
      }
      case "boolean":
        if (!([true, false, "true", "false", "1", "0"] as unknown[]).includes(raw)) throw new ConfigError(`${where} must be true or false`);
        out[key] = (raw as unknown) === true || raw === "true" || raw === "1";
        break;
      case "url":
        try {
          new URL(String(raw));
        } catch {
          throw new ConfigError(`${where} must be a URL, got "${String(raw)}"`);
        }
        out[key] = String(raw);
        break;
      default:
        out[key] = String(raw);
    }
  }
  return out as ConfigValues<S>;
}

/**
 * A daemon's configuration, or a clear one-line message on stderr and exit status 2 (for the
 * entry points: a misconfigured daemon should say what is wrong and stop, not print a stack).
 * `check` may validate further (e.g. the network name) by throwing.
 */
export function loadDaemonConfig<S extends Record<string, OptionSpec>>(name: string, spec: S, check?: (config: ConfigValues<S>) => void): ConfigValues<S> {
  try {
    const config = loadConfig(spec, process.argv.slice(2), process.env);
    check?.(config);
    return config;
  } catch (error) {
    process.stderr.write(`${name}: ${(error as Error).message}\n`);
    process.exit(2);
  }
}

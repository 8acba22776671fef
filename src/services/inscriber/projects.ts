/**
 * The projects an inscriber serves: a JSON file of names and the SHA-256 of each project's key,
 * `{"projects": {"launchpad": {"key_sha256": "<hex>"}}}`. Keys are shown once, when made, and never
 * stored in clear.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { DogeNetwork, isValidAddress } from "../../doge";
import type { ProjectKeys } from "./app";

export const PROJECT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

interface ProjectsFile {
  projects: Record<string, { key_sha256: string }>;
}

function readFile(file: string): ProjectsFile {
  if (!fs.existsSync(file)) return { projects: {} };
  const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<ProjectsFile>;
  return { projects: parsed.projects ?? {} };
}

/** Reads the projects file; refuses malformed entries and an empty file. */
export function readProjects(file: string): ProjectKeys {
  const projects = new Map<string, string>();
  for (const [name, entry] of Object.entries(readFile(file).projects)) {
    if (!PROJECT_NAME_PATTERN.test(name)) throw new Error(`projects file ${file}: "${name}" is not a project name`);
    if (typeof entry?.key_sha256 !== "string" || !/^[0-9a-f]{64}$/.test(entry.key_sha256))
      throw new Error(`projects file ${file}: project ${name} needs key_sha256 (64 lower-case hex)`);
    projects.set(name, entry.key_sha256);
  }
  if (projects.size === 0) throw new Error(`projects file ${file} configures no project`);
  return projects;
}

/** Adds (or re-keys) a project; returns its new key, which is not stored anywhere. */
export function addProject(file: string, name: string): string {
  if (!PROJECT_NAME_PATTERN.test(name))
    throw new Error(`"${name}" is not a project name (lower-case letters, digits, - and _)`);
  const content = readFile(file);
  const key = `ik_${crypto.randomBytes(24).toString("base64url")}`;
  content.projects[name] = { key_sha256: crypto.createHash("sha256").update(key, "utf8").digest("hex") };
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(content, null, 2) + "\n", { mode: 0o600 });
  return key;
}

/**
 * The service addresses and the project that owns each (`--protected-addresses`, comma-separated
 * `<project>=<address>`): the inscriber inscribes to such an address only for its owner (docs/security.md
 * "Launchpad payments"). Throws on a malformed entry or an address of another network.
 */
export function parseProtectedAddresses(text: string, network: DogeNetwork): Map<string, string> {
  const owners = new Map<string, string>();
  for (const entry of text
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "")) {
    const eq = entry.indexOf("=");
    const project = entry.slice(0, eq).trim();
    const address = entry.slice(eq + 1).trim();
    if (eq < 0 || !PROJECT_NAME_PATTERN.test(project))
      throw new Error(`protected address "${entry}" must be <project>=<address> with a project name`);
    if (!isValidAddress(address, network))
      throw new Error(`protected address "${entry}": ${address} is not a ${network.name} address`);
    const owner = owners.get(address);
    if (owner !== undefined && owner !== project)
      throw new Error(`protected address ${address} is named for two projects (${owner}, ${project})`);
    owners.set(address, project);
  }
  return owners;
}

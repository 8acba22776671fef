/**
 * Adds a project to an inscriber's projects file and prints its key once:
 *
 *   npx dogeos project add --projects-file data/inscriber/projects.json --name launchpad
 *   node --import tsx scripts/inscriber-project.ts data/inscriber/projects.json launchpad   (the older form)
 *
 * Running it again for the same name replaces the key (the old one stops working when the
 * inscriber restarts). `--help` lists the options.
 */
import { loadDaemonConfig } from "../src/config/load";
import { addProject } from "../src/services/inscriber/projects";

export const SPEC = {
  "projects-file": {
    kind: "string",
    env: "INSCRIBER_PROJECTS_FILE",
    required: true,
    description: "the inscriber's projects file (its --projects-file); created if missing",
  },
  name: {
    kind: "string",
    required: true,
    description: "the project's name (letters, digits, - and _); an existing project gets a new key",
  },
} as const;

export const HELP = {
  summary: "Adds a project to an inscriber's projects file and prints its key once (only a hash of it is stored).",
};

/** Runs the task with `argv` (options; or the two positionals `<projects file> <name>`); returns the exit status. */
export function run(argv: string[], name = "dogeos project add"): number {
  const positional = argv.length === 2 && !argv[0].startsWith("-") && !argv[1].startsWith("-");
  const config = loadDaemonConfig(
    name,
    SPEC,
    undefined,
    HELP,
    positional ? ["--projects-file", argv[0], "--name", argv[1]] : argv,
  );
  try {
    process.stdout.write(`${addProject(config["projects-file"], config.name)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`${name}: ${(error as Error).message}\n`);
    return 1;
  }
}

if (require.main === module) process.exitCode = run(process.argv.slice(2), "inscriber-project");

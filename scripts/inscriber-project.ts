/**
 * Adds a project to an inscriber's projects file and prints its key once:
 *
 *   node --import tsx scripts/inscriber-project.ts data/inscriber/projects.json launchpad
 *
 * Running it again for the same name replaces the key (the old one stops working when the
 * inscriber restarts).
 */
import { addProject } from "../src/services/inscriber/projects";

const [file, name] = process.argv.slice(2);
if (!file || !name) {
  process.stderr.write("usage: inscriber-project.ts <projects file> <project name>\n");
  process.exit(2);
}
try {
  process.stdout.write(`${addProject(file, name)}\n`);
} catch (error) {
  process.stderr.write(`inscriber-project: ${(error as Error).message}\n`);
  process.exit(1);
}

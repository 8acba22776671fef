/** The processes a test of `npm start` leaves behind, read from /proc. */
import fs from "node:fs";

/**
 * Live processes (zombies excepted, this one too) whose command line names `dir` (the daemons of a
 * stack run with that data directory) or is the scripts/start.ts run with `--port-offset
 * <portOffset>`, as `<pid>: <command line>`.
 */
export function processesUnder(dir: string, portOffset: number): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue;
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ");
      if (
        cmdline.includes(dir) ||
        (cmdline.includes("scripts/start.ts") && cmdline.includes(`--port-offset ${portOffset}`))
      )
        found.push(`${entry}: ${cmdline}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

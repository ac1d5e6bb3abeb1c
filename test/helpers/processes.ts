/** Wait until `condition` holds: an event seen in another process's files (the test's own timeout bounds it). */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * Whether a process still runs. A zombie does not count: in a container whose first process does not
 * reap orphans, a stopped grandchild stays a zombie, and `kill(pid, 0)` still finds it.
 */
import { readFileSync } from "node:fs";

export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return process.platform !== "linux";
  }
}

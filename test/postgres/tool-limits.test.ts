/**
 * The bookkeeping of a worker's `toolConcurrency` (src/postgres/tool-limits.ts), driven as
 * graphile-worker drives it: before each fetch it asks which flags to skip, each fetch ends with a job
 * or none, a job enters before its tool is called and leaves after. A property over random schedules:
 * never more calls of a tool than its limit; a job that carried its flag never waits in the gate
 * (the limit is kept by what is fetched); a job without its flag waits, in the order jobs were taken.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { WorkerToolLimits } from "../../src/postgres/tool-limits.js";

const LIMITS = new Map([
  ["a", 1],
  ["b", 2],
]);
const TOOLS = ["a", "b", "c"] as const;

type Op =
  | { readonly kind: "fetch" }
  | { readonly kind: "resolve"; readonly pick: number; readonly tool: (typeof TOOLS)[number] | "none"; readonly flagless: boolean }
  | { readonly kind: "leave"; readonly pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ kind: "fetch" as const }),
  fc.record({
    kind: fc.constant("resolve" as const),
    pick: fc.nat(),
    tool: fc.constantFrom(...TOOLS, "none" as const),
    flagless: fc.boolean(),
  }),
  fc.record({ kind: fc.constant("leave" as const), pick: fc.nat() }),
);

describe("WorkerToolLimits", () => {
  test("never more calls of a tool than its limit; flagged jobs never wait; flagless ones wait in the order taken", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 80 }), fc.boolean(), async (ops, allowFlagless) => {
        const limits = new WorkerToolLimits(LIMITS, (tool) => `flag/${tool}`);
        const fetches: string[][] = []; // the flags each fetch under way skips
        const toolOf = new Map<string, string>(); // every job taken, in the order taken
        const calling = new Set<string>(); // jobs whose call is under way
        const letIn: string[] = []; // jobs in the order they were let in
        const count = (tool: string) => [...calling].filter((id) => toolOf.get(id) === tool).length;
        const settle = () => new Promise((resolve) => setImmediate(resolve));
        for (const step of ops) {
          if (step.kind === "fetch") fetches.push(limits.forbidden());
          else if (step.kind === "resolve" && fetches.length > 0) {
            const [skip] = fetches.splice(step.pick % fetches.length, 1);
            // A job queued without its flag (by an older version) is fetched whatever is skipped.
            const flagless = allowFlagless && step.flagless;
            if (step.tool === "none" || (skip!.includes(`flag/${step.tool}`) && !flagless)) {
              limits.fetched();
              continue;
            }
            const id = String(toolOf.size + 1);
            toolOf.set(id, step.tool);
            limits.fetched({ id, tool: step.tool });
            void limits.enter(id, step.tool).then((turn) => {
              expect(turn).toBe(true);
              calling.add(id);
              letIn.push(id);
            });
            await settle();
            if (!allowFlagless) expect(calling.has(id)).toBe(true);
          } else if (step.kind === "leave" && calling.size > 0) {
            const id = [...calling][step.pick % calling.size]!;
            calling.delete(id);
            limits.leave(id);
            await settle();
          }
          for (const [tool, limit] of LIMITS) expect(count(tool)).toBeLessThanOrEqual(limit);
        }
        for (const tool of TOOLS) {
          const ofTool = (id: string) => toolOf.get(id) === tool;
          expect(letIn.filter(ofTool)).toEqual([...toolOf.keys()].filter((id) => ofTool(id) && letIn.includes(id)));
        }
      }),
      { numRuns: 200 },
    );
  });

  test("a job that waits is sent back when the worker stops, and so is one that would wait from then on", async () => {
    const limits = new WorkerToolLimits(new Map([["a", 1]]), (tool) => tool);
    limits.fetched({ id: "1", tool: "a" });
    limits.fetched({ id: "2", tool: "a" });
    expect(await limits.enter("1", "a")).toBe(true);
    const waiting = limits.enter("2", "a");
    expect(limits.forbidden()).toEqual(["a"]);
    limits.fetched();
    limits.sendBack();
    expect(await waiting).toBe(false);
    limits.fetched({ id: "3", tool: "a" });
    expect(await limits.enter("3", "a")).toBe(false);
    limits.leave("1");
    expect(limits.forbidden()).toEqual([]);
  });

  test("a tool without a limit, and a job of no known tool, never wait", async () => {
    const limits = new WorkerToolLimits(new Map([["a", 1]]), (tool) => tool);
    expect(await limits.enter("1", "c")).toBe(true);
    expect(await limits.enter("2", undefined)).toBe(true);
    expect(limits.forbidden()).toEqual([]);
  });
});

/**
 * Workload 2: path syntax, `${…}` templates and `deep` on a 1,000-node argument tree (71 records of
 * nested objects and arrays, 355 placeholders), against the baselines that can do the same.
 */
import { compileArgs, resolveRefs, type ResolveOptions } from "../../src/index.js";
import { actionsResolveDeep } from "../baselines/actions-resolver.js";
import { deepCopy } from "../baselines/copy.js";
import { lodashResolveDeep } from "../baselines/lodash-resolver.js";
import { regexResolveDeep } from "../baselines/regex-resolver.js";
import { measure, type Workload } from "../harness.js";

const RECORDS = 71;
const options: ResolveOptions = { syntax: "path", templates: true, deep: true };

function record(i: number) {
  return {
    id: i,
    name: `$1.users[${i}].name`,
    greeting: `Hello \${1.users[${i}].name}, \${2.count} new messages`,
    email: `$1.users[${i}]["e-mail"]`,
    tags: ["travel", `$2.tags[${i % 5}]`],
    meta: { created: "2024-06-01", owner: `$1.users[${i}].id`, flags: [true, false] },
  };
}

export const tree = {
  version: 2,
  request: { id: "req-1", user: "$1.users[0].name" },
  items: Array.from({ length: RECORDS }, (_, i) => record(i)),
};

export const treeResults = {
  1: { users: Array.from({ length: RECORDS }, (_, i) => ({ id: `u${i}`, name: `User ${i}`, "e-mail": `user${i}@example.com` })) },
  2: { count: 5, tags: ["beach", "museum", "food", "hiking", "opera"] },
};

/** Nodes of a tree: every object, array and leaf value, the root included. */
function countNodes(value: unknown): number {
  if (typeof value !== "object" || value === null) return 1;
  return 1 + Object.values(value).reduce((sum: number, item) => sum + countNodes(item), 0);
}

const names = {
  resolveRefs: "plan-refs resolveRefs",
  compiled: "plan-refs compileArgs (compiled once)",
  regex: "regex resolver",
  lodash: "lodash.get resolver",
  actions: "@actions/expressions",
  floor: "floor: deep copy",
} as const;

const workload: Workload = {
  id: "2",
  title: "path syntax + templates + deep on a 1,000-node argument tree",
  async run() {
    const nodes = countNodes(tree);
    if (nodes !== 1000) throw new Error(`workload 2: the tree has ${nodes} nodes, not 1,000`);
    const compiled = compileArgs(tree, options);
    const expected = JSON.stringify(resolveRefs(tree, treeResults, options));
    for (const [name, output] of Object.entries({
      compiled: compiled(treeResults),
      regex: regexResolveDeep(tree, treeResults),
      lodash: lodashResolveDeep(tree, treeResults),
      actions: actionsResolveDeep(tree, treeResults),
    })) {
      if (JSON.stringify(output) !== expected) throw new Error(`workload 2: ${name} disagrees`);
    }
    const rows = await measure(
      {
        [names.resolveRefs]: () => resolveRefs(tree, treeResults, options),
        [names.compiled]: () => compiled(treeResults),
        [names.regex]: () => regexResolveDeep(tree, treeResults),
        [names.lodash]: () => lodashResolveDeep(tree, treeResults),
        [names.actions]: () => actionsResolveDeep(tree, treeResults),
        [names.floor]: () => deepCopy(tree),
      },
      { batch: 1, time: 300, rounds: 5 },
    );
    return {
      id: this.id,
      title: this.title,
      unit: "ns",
      rows,
      baselines: [names.regex, names.floor],
      targets: [],
      notes: [
        `One operation resolves the whole tree: ${nodes} nodes, ${RECORDS * 5 + 1} placeholders (${RECORDS} templates with two interpolations each).`,
        "The baselines copy the whole tree; plan-refs copies only the containers on the way to a placeholder (here nearly all of them).",
      ],
    };
  },
};

export default workload;

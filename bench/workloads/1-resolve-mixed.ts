/**
 * Workload 1: `resolveRefs` on a mixed 10-argument object (placeholders, plain strings, a near-miss,
 * numbers, nested values), seed syntax, against the hand-written alternatives and the shallow-copy floor.
 */
import { compileArgs, resolveRefs } from "../../src/index.js";
import { actionsResolve } from "../baselines/actions-resolver.js";
import { shallowCopy } from "../baselines/copy.js";
import { lodashResolve } from "../baselines/lodash-resolver.js";
import { regexResolve, regexResolveOwnData } from "../baselines/regex-resolver.js";
import { measure, ratioTarget, type Workload } from "../harness.js";

const args = {
  city: "$1.city",
  country: "$1.country",
  date: "$2",
  temperature: "$3.celsius",
  units: "metric",
  days: 3,
  note: "$5 off",
  lang: "en",
  filters: { kind: "hotel", stars: 4 },
  tags: ["beach", "museum"],
};
const results = { 1: { city: "Paris", country: "FR", population: 2_100_000 }, 2: "2024-06-01", 3: { celsius: 21, wind: 12 } };

const names = {
  resolveRefs: "plan-refs resolveRefs",
  compiled: "plan-refs compileArgs (compiled once)",
  regex: "regex resolver",
  regexOwn: "regex resolver, own-data reads",
  lodash: "lodash.get resolver",
  actions: "@actions/expressions",
  floor: "floor: shallow copy",
} as const;

const workload: Workload = {
  id: "1",
  title: "resolveRefs on a mixed 10-argument object (seed syntax)",
  async run() {
    const compiled = compileArgs(args);
    // Every contender must give the same answer before it is timed.
    const expected = JSON.stringify(resolveRefs(args, results));
    for (const [name, output] of Object.entries({
      compiled: compiled(results),
      regex: regexResolve(args, results),
      regexOwn: regexResolveOwnData(args, results),
      lodash: lodashResolve(args, results),
      actions: actionsResolve(args, results),
    })) {
      if (JSON.stringify(output) !== expected) throw new Error(`workload 1: ${name} disagrees: ${JSON.stringify(output)}`);
    }
    const rows = await measure(
      {
        [names.resolveRefs]: () => resolveRefs(args, results),
        [names.compiled]: () => compiled(results),
        [names.regex]: () => regexResolve(args, results),
        [names.regexOwn]: () => regexResolveOwnData(args, results),
        [names.lodash]: () => lodashResolve(args, results),
        [names.actions]: () => actionsResolve(args, results),
        [names.floor]: () => shallowCopy(args),
      },
      { batch: 200, time: 200, rounds: 9 },
    );
    return {
      id: this.id,
      title: this.title,
      unit: "ns",
      rows,
      baselines: [names.regex, names.floor],
      targets: [
        // measured against the resolver that obeys the same rule (own data only, getters never run).
        ratioTarget(rows, "resolveRefs time ÷ regex resolver (own-data reads) time", names.resolveRefs, names.regexOwn, "max", 1),
        ratioTarget(rows, "regex resolver (own-data reads) time ÷ compileArgs time (speed-up)", names.regexOwn, names.compiled, "min", 1.8),
        ratioTarget(rows, "compileArgs time ÷ regex resolver (unsafe) time", names.compiled, names.regex, "max", 1),
      ],
      notes: [
        "One operation resolves the 10 arguments once (4 placeholders, one near-miss `$5 off`). Results: a plain object keyed by step number, as JSON.parse gives it.",
        "`regex resolver, own-data reads` is the regex resolver reading through property descriptors, as plan-refs must (getters never run): the cost of that guarantee.",
        "@actions/expressions gets its context converted once per results object (cached); its time is lexing, parsing and evaluating each placeholder.",
      ],
    };
  },
};

export default workload;

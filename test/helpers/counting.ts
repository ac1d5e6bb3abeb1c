/**
 * Results whose step lookups are counted: a Proxy that records every own-property descriptor read
 * (how plan-refs reads a result; it never runs a getter).
 *
 * @example
 * const { results, reads } = countingResults({ 1: { city: "Paris" } });
 * resolveRefs({ a: "$1.city" }, results); // reads: ["1"]
 */
export function countingResults(target: Record<string, unknown>): { results: Record<string, unknown>; reads: string[] } {
  const reads: string[] = [];
  const results = new Proxy(target, {
    getOwnPropertyDescriptor(object, key) {
      reads.push(String(key));
      return Reflect.getOwnPropertyDescriptor(object, key);
    },
  });
  return { results, reads };
}

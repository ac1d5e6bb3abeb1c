/** The file test/project/lint-config.test.ts lints other text as: clean itself, so `npm run lint` passes it. */
export type Kind = "a" | "b";

/** A clean exhaustive switch. */
export function name(kind: Kind): string {
  switch (kind) {
    case "a":
      return "A";
    case "b":
      return "B";
  }
}

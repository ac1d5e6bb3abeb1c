/**
 * From JSON Pointers (and spans inside string values) to the exact characters of a JSON text.
 *
 * Offsets come from `jsonc-parser`'s visitor, in one pass over the text that follows only the paths
 * some diagnostic asks for (everything else is skipped without callbacks), so no syntax tree of a
 * large plan is ever built. Inside a string token, decoded offsets are mapped to raw ones by reading
 * the token's escapes (`\u0069` is one character of the value, six of the file), once per string.
 */
import { decodeJsonContent } from "../grammar/json-escapes.js";
import { QUOTE } from "../grammar/tokens.js";
import { nestingPast } from "../plan/json-text.js";
import { jsonc } from "../plan/jsonc.js";
import { pointerTokens } from "../shared/pointer.js";
import type { Span } from "../shared/span.js";

/** What to find: the value at `pointer`, the characters `span` covers inside it, or its property name. */
export interface PositionRequest {
  readonly pointer: string;
  readonly span?: Span | undefined;
  readonly at?: "key" | undefined;
}

/** A node of the requested paths, filled in with offsets while the text is visited. */
interface PathNode {
  children: Map<string, PathNode> | undefined;
  valueStart: number;
  valueEnd: number;
  keyStart: number;
  keyEnd: number;
}

interface Frame {
  readonly node: PathNode | undefined;
  readonly array: boolean;
  index: number;
  /** In an object: the path node of the property being read. */
  pending: PathNode | undefined;
}

const newNode = (): PathNode => ({ children: undefined, valueStart: -1, valueEnd: -1, keyStart: -1, keyEnd: -1 });

/**
 * The file offsets of each request, in order. Without a span a request covers the whole value (with
 * `at: "key"`, the property's name in quotes); a pointer that leads nowhere covers the whole document.
 * A text nested deeper than `MAX_JSON_NESTING` gives, for every request, the bracket where it goes too deep.
 * `text` must be valid JSON. Duplicate keys resolve to the last one, as with `JSON.parse`.
 *
 * @example
 * locatePositions('{"a": "x\\u0079z"}', [{ pointer: "/a", span: { start: 1, end: 2 } }]) // [{ start: 9, end: 15 }]
 */
export function locatePositions(text: string, requests: readonly PositionRequest[]): Span[] {
  // The visitor recurses once per level: past the nesting limit, every request points at the bracket
  // that goes too deep (the linter reports that place as a `limit` error).
  const deep = nestingPast(text);
  if (deep !== undefined) return requests.map(() => ({ start: deep.offset, end: deep.offset + 1 }));
  const root = newNode();
  const nodes = requests.map((request) => {
    let node = root;
    for (const token of pointerTokens(request.pointer)) {
      node.children ??= new Map();
      let child = node.children.get(token);
      if (child === undefined) {
        child = newNode();
        node.children.set(token, child);
      }
      node = child;
    }
    return node;
  });
  visitPaths(text, root);
  const strings = new StringOffsets(text);
  return requests.map((request, i) => {
    const node = nodes[i]!;
    if (node.valueStart < 0) return { start: Math.max(0, root.valueStart), end: Math.max(0, root.valueEnd) };
    if (request.at === "key" && node.keyStart >= 0) return { start: node.keyStart, end: node.keyEnd };
    if (request.span === undefined || text.charCodeAt(node.valueStart) !== QUOTE) return { start: node.valueStart, end: node.valueEnd };
    return strings.map(node.valueStart, node.valueEnd, request.span);
  });
}

/** One visitor pass: record offsets of every node on a requested path; skip every other container. */
function visitPaths(text: string, root: PathNode): void {
  const frames: Frame[] = [];
  // The path node of the value that starts now (array items are counted here).
  const current = (): PathNode | undefined => {
    const parent = frames[frames.length - 1];
    if (parent === undefined) return root;
    if (!parent.array) return parent.pending;
    parent.index++;
    return parent.node?.children?.get(String(parent.index));
  };
  const begin =
    (array: boolean) =>
    (offset: number): boolean => {
      const node = current();
      if (node !== undefined) node.valueStart = offset;
      frames.push({ node, array, index: -1, pending: undefined });
      // Nothing requested inside: no callbacks for its contents (its end is still reported).
      return node?.children !== undefined;
    };
  const end = (offset: number, length: number): void => {
    const frame = frames.pop();
    if (frame?.node !== undefined) frame.node.valueEnd = offset + length;
  };
  jsonc.visit(
    text,
    {
      onObjectBegin: begin(false),
      onArrayBegin: begin(true),
      onObjectEnd: end,
      onArrayEnd: end,
      onObjectProperty: (name: string, offset: number, length: number) => {
        const frame = frames[frames.length - 1];
        if (frame === undefined) return;
        const node = frame.node?.children?.get(name);
        frame.pending = node;
        if (node !== undefined) {
          node.keyStart = offset;
          node.keyEnd = offset + length;
        }
      },
      onLiteralValue: (_value: unknown, offset: number, length: number) => {
        const node = current();
        if (node !== undefined) {
          node.valueStart = offset;
          node.valueEnd = offset + length;
        }
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
}

/** Decoded offsets inside string tokens to file offsets, memoized per token that has escapes. */
class StringOffsets {
  readonly #maps = new Map<number, Int32Array>();

  constructor(readonly text: string) {}

  /** The file offsets of `span` (decoded offsets, clamped to the value) in the string token at `[start, end)`. */
  map(start: number, end: number, span: Span): Span {
    const first = start + 1;
    const last = end - 1; // The closing quote.
    const escaped = this.text.indexOf("\\", first);
    if (escaped < 0 || escaped >= last) {
      const length = last - first;
      const from = clamp(span.start, 0, length);
      return { start: first + from, end: first + clamp(span.end, from, length) };
    }
    let offsets = this.#maps.get(start);
    if (offsets === undefined) {
      offsets = decodeJsonContent(this.text, first, last).offsets;
      this.#maps.set(start, offsets);
    }
    const length = offsets.length - 1;
    const from = clamp(span.start, 0, length);
    return { start: offsets[from]!, end: offsets[clamp(span.end, from, length)]! };
  }
}

function clamp(value: number, low: number, high: number): number {
  return Math.max(low, Math.min(value, high));
}

/**
 * A small strict XML 1.0 well-formedness checker for the pictures' tests (no dependency): elements,
 * attributes (quoted, unique per element), character data, the five predefined entities and numeric
 * character references, comments; no DOCTYPE, no processing instruction, no CDATA (the pictures have
 * none, and a DOCTYPE could declare entities). Every character must be an XML `Char`. Throws an Error
 * naming the offset of the first problem; returns the document's element tree.
 */

export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly XmlElement[];
  /** The element's own character data (entities decoded), children's left out. */
  readonly text: string;
}

const NAME = /[A-Za-z_:][A-Za-z0-9_:.-]*/y;
const SPACE = /[ \t\r\n]*/y;
const PREDEFINED: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function isXmlChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

/** Parse `text` as a whole XML document with one root element; throws on anything not well-formed. */
export function parseXml(text: string): XmlElement {
  for (let i = 0; i < text.length; i++) {
    const code = text.codePointAt(i)!;
    if (code > 0xffff) i++;
    else if (code >= 0xd800 && code <= 0xdfff) throw new Error(`lone surrogate at ${i}`);
    if (!isXmlChar(code)) throw new Error(`character U+${code.toString(16)} is not allowed in XML (at ${i})`);
  }
  let at = 0;
  const fail = (message: string): never => {
    throw new Error(`${message} at offset ${at}: ${JSON.stringify(text.slice(at, at + 40))}`);
  };
  const skipSpace = (): void => {
    SPACE.lastIndex = at;
    SPACE.exec(text);
    at = SPACE.lastIndex;
  };
  const name = (): string => {
    NAME.lastIndex = at;
    const match = NAME.exec(text);
    if (match === null) return fail("expected a name");
    at = NAME.lastIndex;
    return match[0];
  };
  const decode = (raw: string, where: number): string =>
    raw.replace(/&([^;]*);?/g, (whole, body: string) => {
      if (!whole.endsWith(";")) throw new Error(`unterminated reference near offset ${where}`);
      if (body in PREDEFINED) return PREDEFINED[body]!;
      const numeric = /^#(?:x([0-9A-Fa-f]+)|([0-9]+))$/.exec(body);
      if (numeric === null) throw new Error(`unknown entity &${body}; near offset ${where}`);
      const code = numeric[1] !== undefined ? Number.parseInt(numeric[1], 16) : Number.parseInt(numeric[2]!, 10);
      if (!isXmlChar(code)) throw new Error(`reference to a character XML forbids near offset ${where}`);
      return String.fromCodePoint(code);
    });
  const skipMisc = (): void => {
    for (;;) {
      skipSpace();
      if (text.startsWith("<!--", at)) {
        const end = text.indexOf("-->", at + 4);
        if (end < 0 || text.slice(at + 4, end).includes("--")) fail("bad comment");
        at = end + 3;
      } else return;
    }
  };

  const element = (): XmlElement => {
    if (text[at] !== "<") fail("expected <");
    at++;
    const tag = name();
    const attributes: Record<string, string> = {};
    for (;;) {
      const before = at;
      skipSpace();
      if (text.startsWith("/>", at)) {
        at += 2;
        return { name: tag, attributes, children: [], text: "" };
      }
      if (text[at] === ">") {
        at++;
        break;
      }
      if (at === before) fail("expected space before an attribute");
      const attribute = name();
      if (Object.hasOwn(attributes, attribute)) fail(`duplicate attribute ${attribute}`);
      skipSpace();
      if (text[at] !== "=") fail("expected =");
      at++;
      skipSpace();
      const quote = text[at];
      if (quote !== '"' && quote !== "'") return fail("expected a quoted value");
      const end = text.indexOf(quote, at + 1);
      if (end < 0) fail("unterminated attribute value");
      const raw = text.slice(at + 1, end);
      if (raw.includes("<")) fail("< in an attribute value");
      attributes[attribute] = decode(raw, at);
      at = end + 1;
    }
    const children: XmlElement[] = [];
    let own = "";
    for (;;) {
      const next = text.indexOf("<", at);
      if (next < 0) fail(`unclosed element <${tag}>`);
      const raw = text.slice(at, next);
      if (raw.includes("]]>")) fail("]]> in character data");
      own += decode(raw, at);
      at = next;
      if (text.startsWith("</", at)) {
        at += 2;
        const closing = name();
        if (closing !== tag) fail(`</${closing}> closes <${tag}>`);
        skipSpace();
        if (text[at] !== ">") fail("expected >");
        at++;
        return { name: tag, attributes, children, text: own };
      }
      if (text.startsWith("<!--", at)) {
        const end = text.indexOf("-->", at + 4);
        if (end < 0 || text.slice(at + 4, end).includes("--")) fail("bad comment");
        at = end + 3;
        continue;
      }
      if (text.startsWith("<!", at) || text.startsWith("<?", at)) fail("DOCTYPE, CDATA and processing instructions are not expected");
      children.push(element());
    }
  };

  skipMisc();
  if (text.startsWith("<?xml", at)) fail("no XML declaration expected");
  const root = element();
  skipMisc();
  if (at !== text.length) fail("content after the root element");
  return root;
}

/** Every element of the tree, depth first. */
export function allElements(root: XmlElement): XmlElement[] {
  const out: XmlElement[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    out.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return out;
}

/** Elements whose `class` attribute holds `name`. */
export function byClass(root: XmlElement, name: string): XmlElement[] {
  return allElements(root).filter((element) => (element.attributes.class ?? "").split(" ").includes(name));
}

/** The text of the element and all its descendants, in document order (children after own text: good enough for labels). */
export function deepText(element: XmlElement): string {
  return element.text + element.children.map(deepText).join("");
}

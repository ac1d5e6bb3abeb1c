/// <reference lib="dom" />
/**
 * A minimal Markdown renderer for hover texts: fenced code blocks, paragraphs, `code`, **bold** and
 * *emphasis*. It builds DOM nodes with `textContent` only — hover text quotes the user's plan and
 * catalog, so it is never parsed as HTML.
 */

/**
 * Render Markdown into a fragment of safe DOM nodes.
 *
 * @example
 * tooltip.append(renderMarkdown(document, "**$1** — `geocode`"))
 */
export function renderMarkdown(doc: Document, markdown: string): DocumentFragment {
  const fragment = doc.createDocumentFragment();
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  let paragraph: string[] = [];
  const flush = (): void => {
    if (paragraph.length === 0) return;
    const p = doc.createElement("p");
    appendInline(doc, p, paragraph.join(" "));
    fragment.append(p);
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^\s*(```+|~~~+)/.exec(line);
    if (fence !== null) {
      flush();
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!); i++) code.push(lines[i]!);
      const pre = doc.createElement("pre");
      const element = doc.createElement("code");
      element.textContent = code.join("\n");
      pre.append(element);
      fragment.append(pre);
    } else if (line.trim() === "" || /^\s*(-{3,}|\*{3,}|_{3,})\s*$/.test(line)) {
      flush();
    } else {
      paragraph.push(line.trim());
    }
  }
  flush();
  return fragment;
}

const INLINE = /`([^`]+)`|\*\*(.+?)\*\*|(?<![\w*])[*_]([^*_]+)[*_](?![\w*])|\\([\\`*_{}[\]()#+\-.!|<>~$])/g;

function appendInline(doc: Document, parent: HTMLElement, text: string): void {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const at = match.index;
    if (at > last) parent.append(doc.createTextNode(text.slice(last, at)));
    const [, code, bold, emphasis, escaped] = match;
    if (code !== undefined) parent.append(element(doc, "code", code));
    else if (bold !== undefined) parent.append(element(doc, "strong", unescape(bold)));
    else if (emphasis !== undefined) parent.append(element(doc, "em", unescape(emphasis)));
    else parent.append(doc.createTextNode(escaped ?? ""));
    last = at + match[0].length;
  }
  if (last < text.length) parent.append(doc.createTextNode(text.slice(last)));
}

function element(doc: Document, tag: string, text: string): HTMLElement {
  const node = doc.createElement(tag);
  node.textContent = text;
  return node;
}

function unescape(text: string): string {
  return text.replace(/\\([\\`*_{}[\]()#+\-.!|<>~$])/g, "$1");
}

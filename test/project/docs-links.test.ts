/**
 * The documentation's links: every relative link and `#anchor` in README.md, docs/, CONTRIBUTING.md,
 * CHANGELOG.md and SECURITY.md leads somewhere. A path must exist in the repository (a file or a
 * folder); an anchor must be a heading of the Markdown file it points into, by GitHub's rule for
 * heading ids. Links inside code (fenced blocks, `inline code`) are text, not links.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, test } from "vitest";
import { documentationFiles, root } from "../helpers/doc-code.js";

const FILES = [...documentationFiles(), "CONTRIBUTING.md", "CHANGELOG.md", "SECURITY.md"];

/** The id GitHub gives a heading: lower case, punctuation dropped (not `-` or `_`), each space a `-`. */
function slug(heading: string): string {
  return heading
    .replace(/`/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The text outside fenced blocks and inline code, line by line (code is blanked, lines kept). */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split("\n").map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line.replace(/`[^`]*`/g, (code) => " ".repeat(code.length));
  });
}

/** The anchors of a Markdown file's headings, with `-1`, `-2`… for repeated ones as GitHub adds them. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every inline link's target (`[text](target)`, `![alt](target)`) with its line, titles dropped. */
function linksOf(markdown: string): { readonly target: string; readonly line: number }[] {
  return prose(markdown).flatMap((line, index) =>
    [...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((found) => ({ target: found[1]!, line: index + 1 })),
  );
}

/** What is wrong with a link from `file` (relative to the repository), or `undefined`. */
function brokenLink(file: string, target: string, read: (path: string) => string | undefined): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [path = "", anchor] = target.split("#", 2);
  const into = path === "" ? file : normalize(join(dirname(file), decodeURI(path)));
  if (into.startsWith("..")) return `${target} leaves the repository`;
  const text = read(into);
  if (text === undefined) return `${target}: ${into} does not exist`;
  if (anchor === undefined || anchor === "") return undefined;
  if (!into.endsWith(".md")) return `${target}: an anchor into a file that is not Markdown`;
  return anchorsOf(text).has(anchor) ? undefined : `${target}: ${into} has no heading #${anchor}`;
}

function readRepository(path: string): string | undefined {
  const full = join(root, path);
  if (!existsSync(full)) return undefined;
  return path.endsWith(".md") ? readFileSync(full, "utf8") : "";
}

describe("the documentation's links", () => {
  test.each(FILES.map((file) => [file] as const))("every relative link and anchor in %s leads somewhere", (file) => {
    expect(existsSync(join(root, file)), `${file} exists`).toBe(true);
    const text = readFileSync(join(root, file), "utf8");
    const broken = linksOf(text).flatMap(({ target, line }) => {
      const problem = brokenLink(file, target, readRepository);
      return problem === undefined ? [] : [`${file}:${line}: ${problem}`];
    });
    expect(broken).toEqual([]);
  });

  test("the docs link each other: every page under docs/ is linked from docs/index.md", () => {
    const index = linksOf(readFileSync(join(root, "docs/index.md"), "utf8")).map(({ target }) =>
      normalize(join("docs", target.split("#")[0]!)),
    );
    const pages = documentationFiles().filter((file) => file.startsWith("docs/") && file !== "docs/index.md");
    expect(pages.filter((page) => !index.includes(page))).toEqual([]);
  });
});

describe("the link checker", () => {
  test.each([
    ["Quick start", "quick-start"],
    ["The AI SDK, offline", "the-ai-sdk-offline"],
    ["`mcp serve`", "mcp-serve"],
    ["PostgreSQL executor (`plan-refs/postgres`)", "postgresql-executor-plan-refspostgres"],
    ["Workload 8: 1,000 plans × 10 steps", "workload-8-1000-plans--10-steps"],
    ["Retries, limits, resume and approval", "retries-limits-resume-and-approval"],
    ['Option `syntax: "path"`', "option-syntax-path"],
  ])("the heading %j has the id %j", (heading, id) => {
    expect(slug(heading)).toBe(id);
  });

  const pages: Record<string, string> = {
    "docs/a.md": "# A\n\n## Two words\n\n## Two words\n\n```md\n## Not a heading\n```\n",
    "docs/b.md": "# B\n",
    "src/x.ts": "",
  };
  const read = (path: string) => pages[path];

  test.each([
    ["a page", "b.md", undefined],
    ["a heading of another page", "a.md#two-words", undefined],
    ["a repeated heading", "a.md#two-words-1", undefined],
    ["a heading of the same page", "#a", undefined],
    ["a source file", "../src/x.ts", undefined],
    ["a web address", "https://example.com/#nowhere", undefined],
    ["a page that does not exist", "c.md", "c.md: docs/c.md does not exist"],
    ["a heading that does not exist", "a.md#three-words", "a.md#three-words: docs/a.md has no heading #three-words"],
    ["a heading inside a code block", "a.md#not-a-heading", "a.md#not-a-heading: docs/a.md has no heading #not-a-heading"],
    ["a path out of the repository", "../../x.md", "../../x.md leaves the repository"],
  ])("from docs/a.md, %s", (_name, target, problem) => {
    expect(brokenLink("docs/a.md", target, read)).toBe(problem);
  });

  test("finds links in prose only, with their lines", () => {
    expect(linksOf('See [a](a.md) and ![b](b.svg "B").\n`[c](c.md)`\n```\n[d](d.md)\n```')).toEqual([
      { target: "a.md", line: 1 },
      { target: "b.svg", line: 1 },
    ]);
  });
});

/**
 * The tool catalog of a plan, for the editor functions: the plan's inline `tools`, else a `tools.json`
 * next to the plan (an open editor's text first, else the file). A catalog is read again only when the
 * open document's version or the file's time and size change.
 */
import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { TextDocument } from "vscode-languageserver-textdocument";
import { parseJsonText } from "../../plan/json-text.js";
import { readTools, type ToolCatalog } from "../../plan/plan.js";
import type { EditorOptions } from "../editor-options.js";
import { analyzePlan, property } from "../plan-document.js";
import type { OpenDocuments, ServerConnection } from "./connection.js";
import { localPath } from "./uri.js";

/** The name of the catalog file read beside a plan (by the language server and the command line). */
export const CATALOG_BESIDE_PLAN = "tools.json";

/**
 * Where the catalog beside the plan file `planPath` is looked for, or `undefined` when the plan (its
 * text `planText`) has its own `tools`: those are its catalog, and a file beside it is not read.
 *
 * @example
 * catalogPathBeside("/work/trip/plan.json", '{"steps":[]}') // "/work/trip/tools.json"
 * catalogPathBeside("/work/trip/plan.json", '{"tools":{},"steps":[]}') // undefined
 */
export function catalogPathBeside(planPath: string, planText: string): string | undefined {
  if (property(analyzePlan(planText).root, "tools") !== undefined) return undefined;
  return join(dirname(planPath), CATALOG_BESIDE_PLAN);
}

/** What reading a catalog needs from the server. */
export interface CatalogHost {
  readonly connection: ServerConnection;
  readonly documents: OpenDocuments;
  /** Read a text file (size-limited, strict UTF-8); throws when it cannot. */
  readonly readTextFile: (path: string) => string;
  readonly log: (what: string, error: unknown) => void;
}

/**
 * The editor options of a plan document, cached per catalog: `{ tools }` from `tools.json` next to
 * the plan, or `undefined` when the plan has its own `tools` or there is no readable catalog.
 *
 * @example
 * const editorOptions = catalogOptions({ connection, documents, readTextFile, log })
 * completionsAt(document.getText(), offset, editorOptions(document))
 */
export function catalogOptions(host: CatalogHost): (document: TextDocument) => EditorOptions | undefined {
  const toolsNextTo = catalogNextTo(host);
  const optionsByCatalog = new WeakMap<ToolCatalog, EditorOptions>();
  return (document) => {
    const catalog = toolsNextTo(document.uri, document.getText());
    if (catalog === undefined) return undefined;
    let cached = optionsByCatalog.get(catalog);
    if (cached === undefined) optionsByCatalog.set(catalog, (cached = { tools: catalog }));
    return cached;
  };
}

/**
 * The catalog of `tools.json` next to a plan's URI. Only for a plan on this machine: a `file://host/…`
 * URI names a file elsewhere, so there is no catalog beside it to read (the plan is still linted, with
 * its inline `tools` if any). A catalog that cannot be read or is not valid JSON is `undefined` and
 * said in the client's log.
 */
function catalogNextTo(host: CatalogHost): (uri: string, text: string) => ToolCatalog | undefined {
  const catalogs = new Map<string, { stamp: string; catalog: ToolCatalog | undefined }>();
  return (uri, text) => {
    const file = localPath(uri);
    const path = file === undefined ? undefined : catalogPathBeside(file, text);
    if (path === undefined) return undefined;
    const open = host.documents.get(pathToFileURL(path).href);
    const stamp = open !== undefined ? `open:${open.version}` : fileStamp(path);
    if (stamp === undefined) return undefined;
    const cached = catalogs.get(path);
    if (cached?.stamp === stamp) return cached.catalog;
    let catalog: ToolCatalog | undefined;
    try {
      const parsed = parseJsonText(open?.getText() ?? host.readTextFile(path));
      const problems: string[] = [];
      catalog = parsed.ok ? readTools(parsed.value, (pointer, message) => problems.push(`${pointer || "/"}: ${message}`), "") : undefined;
      if (!parsed.ok)
        host.connection.console.warn(
          `plan-refs: ${path}:${parsed.error.line}:${parsed.error.column}: invalid JSON: ${parsed.error.message}`,
        );
      else if (problems.length > 0) host.connection.console.warn(`plan-refs: ${path}: ${problems.slice(0, 3).join("; ")}`);
    } catch (error) {
      host.log(`cannot read ${path}`, error);
      catalog = undefined;
    }
    catalogs.set(path, { stamp, catalog });
    return catalog;
  };
}

/** A file's modification time and size, or `undefined` when it is not a file that can be stat'ed. */
function fileStamp(path: string): string | undefined {
  try {
    const stats = statSync(path);
    return stats.isFile() ? `file:${stats.mtimeMs}:${stats.size}` : undefined;
  } catch {
    return undefined;
  }
}

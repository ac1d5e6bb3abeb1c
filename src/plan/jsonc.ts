/**
 * The one import of `jsonc-parser`. Node loads the package's CommonJS build (its exports arrive as the
 * default export); bundlers load its ES module build (named exports, no default). This file gives
 * the rest of plan-refs the same object either way.
 */
import * as jsoncModule from "jsonc-parser";

type Jsonc = typeof jsoncModule;

/** jsonc-parser's API, whichever build was loaded. */
export const jsonc: Jsonc = (jsoncModule as Jsonc & { default?: Jsonc }).default ?? jsoncModule;

export type JsoncNode = jsoncModule.Node;

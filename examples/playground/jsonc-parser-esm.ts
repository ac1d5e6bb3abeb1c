// The library imports jsonc-parser's default export, which Node gives it from the package's CommonJS
// build; in the browser the package's ES module build has no default export, so this shim provides one.
import * as jsonc from "jsonc-parser/lib/esm/main.js";

export default jsonc;

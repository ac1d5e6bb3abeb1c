// The playground imports the library from source (../../src) and the trip example (../trip), so the
// dev server may read the whole repository; nothing is fetched from the network.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));
const repository = fileURLToPath(new URL("../..", import.meta.url));

export default defineConfig({
  root,
  base: "./",
  clearScreen: false,
  server: { fs: { strict: true, allow: [repository] } },
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 2048 },
});

import { defineConfig } from "vitest/config";

// The build's replacements (build.mjs), with a version the tests can recognize.
export default defineConfig({
  define: {
    __SDK_VERSION__: JSON.stringify("0.0.0-test"),
    __BANNER_CSS__: JSON.stringify(".banner{display:flex}"),
  },
  test: { environment: "happy-dom", include: ["test/**/*.test.ts"] },
});

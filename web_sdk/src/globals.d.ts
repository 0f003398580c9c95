/** Replaced at build time (build.mjs) and in tests (vitest.config.ts). */
declare const __SDK_VERSION__: string;
declare const __BANNER_CSS__: string;

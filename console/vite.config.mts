import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The console's build: one small entry (sign-in, layout, router) and a chunk per page, loaded when
 * the page is opened. Output in console/dist, which local mode serves at / and the CDK app uploads.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  // Preact's automatic JSX runtime, as console/tsconfig.json declares it for the type checker.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: { alias: { react: 'preact/compat', 'react-dom': 'preact/compat' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Nothing inline: the strict Content-Security-Policy allows scripts and styles from files only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    // Which files each page needs (bench/console.ts weighs the first load from it).
    manifest: true,
  },
  logLevel: 'warn',
});

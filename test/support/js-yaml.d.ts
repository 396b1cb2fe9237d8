// js-yaml (already installed with ESLint) ships no types; this is the part the tests use.
declare module 'js-yaml' {
  export function load(text: string, options?: { filename?: string }): unknown;
}

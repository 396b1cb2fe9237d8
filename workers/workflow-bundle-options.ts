/**
 * How every workflow bundle is built: by `npm run build`, by the tests, and by a worker that
 * bundles at start.
 *
 * The workflow modules are preloaded: evaluated once per workflow thread and shared by every
 * workflow in it, instead of once per workflow. Without this each workflow that starts, or
 * replays after it was evicted from the cache, evaluates all of the workflow modules and the shared modules
 * they import again and keeps its own copy of every function and constant in them. That is safe
 * only because these modules hold no state: lint refuses `let`/`var` and mutable collections at
 * module scope in every workflow module and in the shared files the bundle contains (eslint.config.mjs).
 */
export function workflowBundleOptions(workflowsPath: string): { workflowsPath: string; preloadModules: string[] } {
  return { workflowsPath, preloadModules: [workflowsPath] };
}

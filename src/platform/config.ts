/**
 * The whole configuration's type. Platform's own section is here; each feature adds its section
 * in its `<feature>.config.ts` (`declare module '../platform/config'`, TypeScript's declaration
 * merging, as fastify's plugins add to `FastifyInstance`). Code that takes the whole configuration
 * (a CLI command, the Temporal connection) names this type without importing every feature, so no
 * import points from a feature up to the file that assembles the sections (src/config.ts).
 */
import type { PlatformConfig } from './platform.config';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the features' sections merge into it
export interface Config extends PlatformConfig {}

/** The attachments section of the configuration (src/config.ts assembles the sections): ATTACHMENT_*. */
import { DEFAULT_ATTACHMENT_LIMITS, type AttachmentLimits } from './attachment-limits';
import { envValues, type Env } from '../platform/env-values';

export interface AttachmentsConfig {
  /** How far the index step reads attachments (ATTACHMENT_*; docs/attachments.md). */
  attachments: AttachmentLimits;
}

export function readAttachmentsConfig(env: Env, problems: string[]): AttachmentsConfig {
  const v = envValues(env, problems);
  const d = DEFAULT_ATTACHMENT_LIMITS;
  return {
    attachments: {
      ...d,
      maxBytes: v.intInRange('ATTACHMENT_MAX_BYTES', d.maxBytes, 0),
      maxPages: v.intInRange('ATTACHMENT_MAX_PAGES', d.maxPages, 1, 10_000),
      maxChars: v.intInRange('ATTACHMENT_MAX_CHARS', d.maxChars, 1_000, 10_000_000),
      timeoutMs: v.intInRange('ATTACHMENT_TIMEOUT_MS', d.timeoutMs, 100, 600_000),
      maxFiles: v.intInRange('ATTACHMENT_MAX_FILES', d.maxFiles, 0, 1_000),
    },
  };
}

// This feature's section of the whole configuration (src/platform/config.ts).
declare module '../platform/config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into the whole configuration
  interface Config extends AttachmentsConfig {}
}

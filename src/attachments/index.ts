/**
 * The face of attachments/: what the other features and the processes may use of it, none of
 * which loads a driver or SDK (what does is in index.adapters.ts); everything else in the folder is
 * its own.
 *
 * Attachments: their store, their reader (text of PDF, Word and plain files in a worker thread
 * with limits), their text as draft context, and their limits.
 */
export { INLINE_IMAGE_TYPES, NO_TEXT_BY_NATURE, attachmentSourceId, formatBytes } from './attachment-limits';
export { createAttachmentReader } from './attachment-reader';
export { attachmentContext, readAttachmentTexts } from './attachment-text';
export { detectContentType } from './attachment-type';
export { readAttachmentsConfig } from './attachments.config';
export { ATTACHMENT_EVENTS } from './attachments.contract';
export type { AttachmentFile, AttachmentStore, AttachmentTextReader, StoredAttachment } from './attachments.port';

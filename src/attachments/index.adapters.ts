/**
 * The part of attachments/'s face that loads a driver or SDK: its adapters, and the commands and assemblies
 * that build them. The processes that wire the features import it, and the few features that assemble
 * another's adapters; everything else takes attachments/index.ts, which loads none.
 */
export { createMariaDbAttachmentStore } from './attachment-store.mariadb';

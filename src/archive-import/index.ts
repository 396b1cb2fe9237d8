/**
 * TODO face header
 */
export { IMPORT_AUDIT_EVENTS } from './archive-import.contract';
export { planArchive, readArchive } from './archive-sources';
export { ingestCommand } from './ingest.cli';

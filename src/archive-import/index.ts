/**
 * The face of archive-import/: what the other features and the processes may use of it, none of
 * which loads a driver or SDK (what does is in index.adapters.ts); everything else in the folder is
 * its own.
 *
 * Importing mail archives (mbox, Maildir, .eml files) into the pipeline: the `ingest` command, and
 * the archive readers the replay reads a team's history with.
 */
export { IMPORT_AUDIT_EVENTS } from './archive-import.contract';

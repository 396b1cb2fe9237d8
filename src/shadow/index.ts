/**
 * The face of shadow/: what the other features and the processes may use of it, none of which
 * loads a driver or SDK (what does is in index.adapters.ts); everything else in the folder is its own.
 *
 * Shadow evidence: each draft a person answered instead of (a mailbox in shadow mode, or a person
 * quicker than the review), measured against the reply they sent with the replay's measures, and
 * the shadow report over it.
 */
export { createDraftMeasure } from './draft-measure';
export { buildShadowReport, standDownFigures, type ShadowReport, type StandDownFigures } from './shadow-report';
export type { ShadowEvidenceFilter, ShadowEvidenceRow, ShadowEvidenceStore, ShadowReportRow } from './shadow-evidence.port';

/**
 * The part of cases/'s face that loads a driver or SDK: its adapters, and the commands and assemblies
 * that build them. The processes that wire the features import it, and the few features that assemble
 * another's adapters; everything else takes cases/index.ts, which loads none.
 */
export { createMariaDbCaseClaims } from './case-claims.mariadb';
export { createMariaDbCaseClock } from './case-clock.mariadb';
export { createMariaDbCaseFigures } from './case-figures.mariadb';
export { createCaseReplies } from './case-replies';
export { createMariaDbCaseRouting } from './case-routing.mariadb';
export { createTemporalCaseSignals } from './case-signals.temporal';
export { createMariaDbCaseStore } from './case-store.mariadb';
export { createMariaDbCaseSummaryStore } from './case-summary-store.mariadb';
export { createMariaDbCaseView } from './case-view.mariadb';
export { casesCommands } from './cases.cli';

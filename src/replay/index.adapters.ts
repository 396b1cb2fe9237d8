/**
 * The part of replay/'s face that loads a driver or SDK: its adapters, and the commands and assemblies
 * that build them. The processes that wire the features import it, and the few features that assemble
 * another's adapters; everything else takes replay/index.ts, which loads none.
 */
export { createMariaDbReplayEvidence } from './replay-evidence.mariadb';
export { createMariaDbReplayStore } from './replay-store.mariadb';
export { replayCommands } from './replay.cli';
export { createMariaDbPairRatings, type PairRatingStore, type RatingPair } from './pair-ratings.mariadb';

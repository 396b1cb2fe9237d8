/**
 * The part of review-inbox/'s face that loads a driver or SDK: its adapters, and the commands and assemblies
 * that build them. The processes that wire the features import it, and the few features that assemble
 * another's adapters; everything else takes review-inbox/index.ts, which loads none.
 */
export { inboxCommands } from './inbox-users.cli';
export { createMariaDbSignInRefusals } from './login-refusals.mariadb';

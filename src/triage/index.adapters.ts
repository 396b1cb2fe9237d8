/**
 * The part of triage/'s face that loads a driver: the MariaDB lookup of known senders. The
 * processes that wire the features import it; everything else takes triage/index.ts.
 */
export { createMariaDbKnownSenders } from './known-sender.mariadb';

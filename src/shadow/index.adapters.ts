/** What of shadow/ loads a driver: its MariaDB store and its CLI commands, for the processes. */
export { createMariaDbShadowEvidence } from './shadow-evidence.mariadb';
export { formatShadowReport, shadowCommands, shadowReport } from './shadow.cli';

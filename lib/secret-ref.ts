/**
 * Where a secret comes from. Only the reference is kept in config, MariaDB and workflow history;
 * the worker reads the value when it builds the mailbox's adapters.
 */
export type SecretRef = { env: string } | { file: string };

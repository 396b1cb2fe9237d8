import * as path from 'node:path';

/**
 * Where a secret comes from. Only the reference is kept in config, MariaDB and workflow history;
 * the worker reads the value when it builds the mailbox's adapters.
 */
export type SecretRef = { env: string } | { file: string };

const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/**
 * A reference as a registry file writes it: `{ env: VARIABLE }` or `{ file: path }` (resolved
 * against the working directory). Undefined for anything else, a literal secret included.
 */
export function parseSecretRef(raw: unknown): SecretRef | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  if (Object.keys(r).length !== 1) return undefined;
  if (typeof r.env === 'string' && ENV_NAME.test(r.env)) return { env: r.env };
  if (typeof r.file === 'string' && r.file.trim()) return { file: path.resolve(r.file) };
  return undefined;
}

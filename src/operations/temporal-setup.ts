/**
 * `email-rag temporal setup`'s work on the namespace: it exists (created where it may be), the
 * product's search attributes are registered, the retention is as asked. What the server refuses
 * (Temporal Cloud, a cluster that keeps these to its administrators) becomes a warning that says
 * what to do by hand, so that an installation's init can go on; every other failure is thrown.
 */
import type { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTES, type SearchAttributeName } from '../platform/contract';
import { GRPC_STATUS, grpcCode } from '../platform/grpc-status';
import { ensureNamespace, setNamespaceRetention } from '../platform/temporal-namespace';
import { ANOTHER_TYPE, listSearchAttributes, registerSearchAttributes } from './search-attributes.temporal';
import { namespaceByHand, retentionByHand, searchAttributesByHand } from './temporal-by-hand';

type Services = Pick<Connection, 'workflowService' | 'operatorService'>;

/** Retention of a namespace this command creates when `--retention-days` is not given (the stack's default). */
export const NEW_NAMESPACE_RETENTION_DAYS = 30;

export interface TemporalSetupReport {
  /**
   * `all-set`: everything is in place. `by-hand`: done where the server allowed it; `warnings` say
   * what an administrator must still do. `no-namespace`: the namespace does not exist and may not
   * be created here; nothing else was tried (nothing works without it).
   */
  outcome: 'all-set' | 'by-hand' | 'no-namespace';
  lines: string[];
  warnings: string[];
}

export async function setUpTemporalNamespace(
  connection: Services,
  namespace: string,
  opts: { retentionDays?: number; newNamespaceWaitMs?: number } = {},
): Promise<TemporalSetupReport> {
  const lines: string[] = [];
  const warnings: string[] = [];
  const newDays = opts.retentionDays ?? NEW_NAMESPACE_RETENTION_DAYS;
  const ns = await ensureNamespace(connection, namespace, newDays);
  if (ns.outcome === 'refused')
    return {
      outcome: 'no-namespace',
      lines,
      warnings: [
        `namespace ${namespace} does not exist and the server refused to create it (${ns.reason}): ${namespaceByHand(namespace, newDays)}`,
      ],
    };
  if (ns.outcome === 'created') lines.push(`namespace ${namespace}: created, retention ${newDays} days`);

  // A namespace just made is known to the frontend's cache only after its next refresh (seconds).
  const attributes = await untilKnown(
    () => registerSearchAttributes(connection, namespace),
    ns.outcome === 'created' ? (opts.newNamespaceWaitMs ?? 30_000) : 0,
  );
  if (attributes.refused === undefined) {
    lines.push(
      `search attributes on ${namespace}: added ${attributes.added.join(', ') || 'none'}; already there ${attributes.present.join(', ') || 'none'}`,
    );
  } else {
    const { found } = await listSearchAttributes(connection, namespace);
    const missing = (Object.keys(SEARCH_ATTRIBUTES) as SearchAttributeName[]).filter((n) => !found.has(n));
    const wrong = (Object.keys(SEARCH_ATTRIBUTES) as SearchAttributeName[]).filter((n) => found.get(n) === ANOTHER_TYPE);
    if (missing.length === 0 && wrong.length === 0) lines.push(`search attributes on ${namespace}: all there (registered by hand)`);
    if (missing.length > 0)
      warnings.push(
        `the server refused to register search attributes on ${namespace} (${attributes.refused}); missing: ${missing.join(', ')}. ` +
          `Email workflows stall at their first step until they are there: ${searchAttributesByHand(namespace, missing)}`,
      );
    if (wrong.length > 0)
      warnings.push(
        `search attributes on ${namespace} registered with another type than the product's: ${wrong.join(', ')}; remove them and ${searchAttributesByHand(namespace, wrong)}`,
      );
  }

  if (opts.retentionDays !== undefined && ns.outcome === 'exists') {
    const days = opts.retentionDays;
    const set = await setNamespaceRetention(connection, namespace, days);
    if (set.outcome === 'set') lines.push(`retention on ${namespace}: ${days} days (was ${set.beforeDays ?? '?'})`);
    else if (set.outcome === 'unchanged') lines.push(`retention on ${namespace}: ${days} days (unchanged)`);
    else
      warnings.push(
        `the server refused to set the retention of ${namespace} (${set.reason}); it stays ${set.beforeDays ?? 'as the server has it'}${set.beforeDays === null ? '' : ' days'}: ${retentionByHand(namespace, days)}`,
      );
  }
  return { outcome: warnings.length > 0 ? 'by-hand' : 'all-set', lines, warnings };
}

/** Runs `call` again while the server does not know the namespace yet (NOT_FOUND), for up to `waitMs`. */
async function untilKnown<T>(call: () => Promise<T>, waitMs: number): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (grpcCode(err) !== GRPC_STATUS.notFound || Date.now() >= deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTES, type SearchAttributeName } from '../platform/contract';

const INDEXED = temporal.api.enums.v1.IndexedValueType;
const TYPES: Record<(typeof SEARCH_ATTRIBUTES)[SearchAttributeName], temporal.api.enums.v1.IndexedValueType> = {
  Keyword: INDEXED.INDEXED_VALUE_TYPE_KEYWORD,
  Bool: INDEXED.INDEXED_VALUE_TYPE_BOOL,
  Int: INDEXED.INDEXED_VALUE_TYPE_INT,
};

/**
 * Registers the email workflow's search attributes on a namespace (operator API), one at a time
 * so that one already there does not hide the others. Idempotent: returns the names it added.
 */
export async function registerSearchAttributes(
  connection: Pick<Connection, 'operatorService'>,
  namespace: string,
): Promise<{ added: string[]; present: string[] }> {
  const added: string[] = [];
  const present: string[] = [];
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES) as Array<
    [SearchAttributeName, (typeof SEARCH_ATTRIBUTES)[SearchAttributeName]]
  >) {
    try {
      await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: { [name]: TYPES[type] } });
      added.push(name);
    } catch (err) {
      // ALREADY_EXISTS (6): registered earlier, by setup or by hand.
      if ((err as { code?: number }).code === 6 || /already exists/i.test((err as Error).message)) present.push(name);
      else throw err;
    }
  }
  return { added, present };
}

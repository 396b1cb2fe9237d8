import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTES, type SearchAttributeName } from '../platform/contract';
import { GRPC_STATUS, grpcCode, refusedByServer, serverReason } from '../platform/grpc-status';

const INDEXED = temporal.api.enums.v1.IndexedValueType;
type SearchAttributeType = (typeof SEARCH_ATTRIBUTES)[SearchAttributeName];
const TYPES: Record<SearchAttributeType, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: INDEXED.INDEXED_VALUE_TYPE_KEYWORD,
  Bool: INDEXED.INDEXED_VALUE_TYPE_BOOL,
  Int: INDEXED.INDEXED_VALUE_TYPE_INT,
};
/** A value of each type for a visibility query that only asks whether the attribute is there. */
const PROBE_VALUES: Record<SearchAttributeType, string> = { Keyword: "''", Bool: 'true', Int: '0' };
/** The type word of an attribute registered with another type than the product's, when only queries could tell. */
export const ANOTHER_TYPE = 'another type';

const wanted = () => Object.entries(SEARCH_ATTRIBUTES) as Array<[SearchAttributeName, SearchAttributeType]>;

/**
 * Registers the email workflow's search attributes on a namespace (operator API), one at a time
 * so that one already there does not hide the others. Idempotent: returns the names it added and
 * those already there. When the server refuses the operator API (Temporal Cloud to a namespace's
 * credentials), `refused` carries its reason and nothing further is asked of that API.
 */
export async function registerSearchAttributes(
  connection: Pick<Connection, 'operatorService'>,
  namespace: string,
): Promise<{ added: string[]; present: string[]; refused?: string }> {
  const added: string[] = [];
  const present: string[] = [];
  for (const [name, type] of wanted()) {
    try {
      await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: { [name]: TYPES[type] } });
      added.push(name);
    } catch (err) {
      if (refusedByServer(err)) return { added, present, refused: serverReason(err) };
      // ALREADY_EXISTS (6): registered earlier, by setup or by hand.
      if (grpcCode(err) === GRPC_STATUS.alreadyExists || /already exists/i.test((err as Error).message)) present.push(name);
      else throw err;
    }
  }
  return { added, present };
}

/**
 * The namespace's custom search attributes: name → type word as the SDK's enum spells it
 * (`KEYWORD`, `BOOL`, `INT`). From the operator API; where the server refuses that, each of the
 * product's attributes is asked with a visibility query instead (allowed to anyone who may list
 * workflows): an unknown name fails as an invalid search attribute, another type as an invalid
 * value. Those answers know only the product's attributes, and a wrong type only as ANOTHER_TYPE.
 */
export async function listSearchAttributes(
  connection: Pick<Connection, 'operatorService' | 'workflowService'>,
  namespace: string,
): Promise<{ found: Map<string, string>; operatorApiRefused: boolean }> {
  const found = new Map<string, string>();
  try {
    const r = await connection.operatorService.listSearchAttributes({ namespace });
    for (const [name, type] of Object.entries(r.customAttributes ?? {}))
      found.set(name, String(INDEXED[type]).replace(/^INDEXED_VALUE_TYPE_/, ''));
    return { found, operatorApiRefused: false };
  } catch (err) {
    if (!refusedByServer(err)) throw err;
  }
  for (const [name, type] of wanted()) {
    try {
      await connection.workflowService.countWorkflowExecutions({ namespace, query: `${name} = ${PROBE_VALUES[type]}` });
      found.set(name, type.toUpperCase());
    } catch (err) {
      if (grpcCode(err) !== GRPC_STATUS.invalidArgument) throw err;
      if (!/invalid search attribute|unknown search attribute|not defined/i.test((err as Error).message)) found.set(name, ANOTHER_TYPE);
    }
  }
  return { found, operatorApiRefused: true };
}

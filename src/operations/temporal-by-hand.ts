/**
 * What an administrator does by hand where Temporal refused `email-rag temporal setup` a change:
 * Temporal Cloud takes namespaces, retention and search attributes only in its console or through
 * `tcld`; a self-hosted cluster whose authorizer keeps them to administrators takes them from the
 * `temporal` CLI with an administrator's credentials. Shared by the setup and by the doctor.
 */
import { SEARCH_ATTRIBUTES, type SearchAttributeName } from '../platform/contract';

const list = (words: string[]) => (words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`);

/** `EmailStatus and Mailbox of type Keyword, NeedsHuman of type Bool`. */
function byType(names: SearchAttributeName[]): string {
  const groups = new Map<string, string[]>();
  for (const name of names) groups.set(SEARCH_ATTRIBUTES[name], [...(groups.get(SEARCH_ATTRIBUTES[name]) ?? []), name]);
  return [...groups].map(([type, group]) => `${list(group)} of type ${type}`).join(', ');
}

export function searchAttributesByHand(namespace: string, names: SearchAttributeName[]): string {
  const tcld = names.map((n) => ` --search-attribute ${n}=${SEARCH_ATTRIBUTES[n]}`).join('');
  const cli = names.map((n) => ` --name ${n} --type ${SEARCH_ATTRIBUTES[n]}`).join('');
  return (
    `add the search attributes ${byType(names)} to the namespace ${namespace}: ` +
    `in Temporal Cloud's UI (the namespace's Custom Search Attributes) or with ` +
    `\`tcld namespace search-attributes add --namespace ${namespace}${tcld}\`; ` +
    `on a self-hosted cluster with an administrator's credentials: \`temporal operator search-attribute create --namespace ${namespace}${cli}\``
  );
}

export function retentionByHand(namespace: string, days: number): string {
  return (
    `set the retention of ${namespace} to ${days} days by hand: in Temporal Cloud's UI (the namespace's settings) or with ` +
    `\`tcld namespace retention set --namespace ${namespace} --retention-days ${days}\`; ` +
    `on a self-hosted cluster with an administrator's credentials: \`temporal operator namespace update --namespace ${namespace} --retention ${days * 24}h\``
  );
}

export function namespaceByHand(namespace: string, days: number): string {
  return (
    `create the namespace ${namespace} (retention ${days} days) in Temporal Cloud's UI or with \`tcld namespace create\`, ` +
    `or on a self-hosted cluster with an administrator's credentials: ` +
    `\`temporal operator namespace create --namespace ${namespace} --retention ${days * 24}h\`; ` +
    `or set TEMPORAL_NAMESPACE to a namespace that exists. Then run this again`
  );
}

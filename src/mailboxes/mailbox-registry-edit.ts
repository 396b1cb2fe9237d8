import { isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { ConfigError } from '../platform/errors';
import { parseMailboxRegistry, type MailboxDefaults } from './mailbox-registry';
import { MAILBOX_MODES, type MailboxMode } from './mailboxes.contract';

/**
 * Sets `enabled` of one entry of a registry file's text and returns the new text. YAML is edited
 * through the parser's document model, so comments, order and quoting of everything else stay as
 * the people who version the file wrote them; a JSON file stays JSON. The result is validated like
 * the file itself before anyone writes it, and disabling the last enabled mailbox is refused.
 */
export function setMailboxEnabled(
  text: string,
  id: string,
  enabled: boolean,
  opts: { json: boolean; defaults: MailboxDefaults },
): { text: string; changed: boolean } {
  const before = parseMailboxRegistry(text, opts.defaults);
  const entry = before.find((m) => m.id === id);
  if (!entry) throw new ConfigError(`no mailbox "${id}" in the registry (known: ${before.map((m) => m.id).join(', ')})`);
  if (entry.enabled === enabled) return { text, changed: false };
  if (!enabled && before.every((m) => m.id === id || !m.enabled))
    throw new ConfigError(`"${id}" is the only enabled mailbox: an installation needs at least one`);
  return { text: setField(text, id, 'enabled', enabled, opts), changed: true };
}

/** Sets `mode` (live or shadow) of one entry, as setMailboxEnabled sets `enabled`. */
export function setMailboxMode(
  text: string,
  id: string,
  mode: MailboxMode,
  opts: { json: boolean; defaults: MailboxDefaults },
): { text: string; changed: boolean; from: MailboxMode } {
  const before = parseMailboxRegistry(text, opts.defaults);
  const entry = before.find((m) => m.id === id);
  if (!entry) throw new ConfigError(`no mailbox "${id}" in the registry (known: ${before.map((m) => m.id).join(', ')})`);
  const from = entry.mode ?? MAILBOX_MODES.live;
  if (from === mode) return { text, changed: false, from };
  return { text: setField(text, id, 'mode', mode, opts), changed: true, from };
}

function setField(
  text: string,
  id: string,
  key: string,
  value: boolean | string,
  opts: { json: boolean; defaults: MailboxDefaults },
): string {
  let out: string;
  if (opts.json) {
    const doc = JSON.parse(text) as { mailboxes: Array<Record<string, unknown>> };
    const raw = doc.mailboxes.find((m) => typeof m.id === 'string' && m.id.trim() === id)!;
    raw[key] = value;
    out = `${JSON.stringify(doc, null, 2)}\n`;
  } else {
    out = editYaml(text, id, key, value);
  }
  parseMailboxRegistry(out, opts.defaults); // the edit must leave a file that loads
  return out;
}

/**
 * Changes the one value (or adds the one line) in the file's own text, located through the
 * document model: re-serialising would restyle flow collections and quoting elsewhere.
 */
function editYaml(text: string, id: string, key: string, enabled: boolean | string): string {
  const doc = parseDocument(text);
  const list = doc.get('mailboxes');
  if (!isSeq(list)) throw new ConfigError('mailboxes must be a list');
  const item = list.items.find((m) => isMap(m) && String(m.get('id')).trim() === id);
  if (!isMap(item)) throw new ConfigError(`no mailbox "${id}" in the registry`);
  const value = String(enabled);
  const current = item.get(key, true);
  if (isScalar(current) && current.range) return text.slice(0, current.range[0]) + value + text.slice(current.range[1]);
  const idPair = item.items.find((p) => isScalar(p.key) && p.key.value === 'id');
  const keyStart = isScalar(idPair?.key) ? idPair.key.range?.[0] : undefined;
  if (item.flow || keyStart === undefined) {
    // `- { id: x, … }` on one line: no line to add; the document model writes the entry.
    item.set(key, enabled);
    return doc.toString();
  }
  // A new line right below the id, at the id's indentation, where a reader looks for it.
  const lineStart = text.lastIndexOf('\n', keyStart) + 1;
  const lineEnd = text.indexOf('\n', keyStart);
  const at = lineEnd === -1 ? text.length : lineEnd;
  return `${text.slice(0, at)}\n${' '.repeat(keyStart - lineStart)}${key}: ${value}${text.slice(at)}`;
}

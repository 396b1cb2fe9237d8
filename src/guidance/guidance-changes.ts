/**
 * Saving a new version of a scope's guidance, as the CLI and the review inbox do it: checked,
 * stored (never over an older version) and audited with who wrote it and the version.
 */
import type { Config } from '../platform/config';
import type { AuditLog } from '../platform/store.port';
import { GUIDANCE_AUDIT_EVENTS, GUIDANCE_MAX_CHARS } from './guidance.contract';
import type { GuidanceStore, GuidanceVersion } from './guidance.port';
import { formatScope, parseScope } from './guidance-scope';

/** The mailboxes and categories of the installation: guidance for a name it does not know would never apply. */
export interface KnownNames {
  mailboxes: readonly string[];
  categories: readonly string[];
}

/** The installation's mailbox ids and category names, which a scope must name. */
export const knownNames = (config: Pick<Config, 'mailboxes' | 'categories'>): KnownNames => ({
  mailboxes: config.mailboxes.map((m) => m.id),
  categories: config.categories.map((c) => c.name),
});

export interface GuidanceChange {
  scope: string;
  text: string;
  author: string;
}

/** Throws a RangeError for a scope, text or author that cannot be saved, saying why. */
export async function saveGuidance(
  deps: { store: GuidanceStore; audit: AuditLog },
  change: GuidanceChange,
  known?: KnownNames,
): Promise<{ created: boolean; version: GuidanceVersion }> {
  const scope = parseScope(change.scope);
  if (known && scope.mailboxId && !known.mailboxes.includes(scope.mailboxId))
    throw new RangeError(`no mailbox "${scope.mailboxId}" (known: ${known.mailboxes.join(', ')})`);
  if (known && scope.category && !known.categories.includes(scope.category))
    throw new RangeError(`no category "${scope.category}" (known: ${known.categories.join(', ')})`);
  // Browsers send CRLF; the prompt and the comparison with the current text take LF.
  const text = change.text.replace(/\r\n?/g, '\n').trim();
  if (text === '') throw new RangeError('the guidance text is empty');
  if (text.length > GUIDANCE_MAX_CHARS)
    throw new RangeError(`the guidance text has ${text.length} characters; at most ${GUIDANCE_MAX_CHARS} enter a prompt`);
  const author = change.author.trim();
  if (author === '') throw new RangeError('who writes the guidance must be named');
  const saved = await deps.store.add(scope, text, author);
  if (saved.created) {
    const v = saved.version;
    const name = formatScope(v.scope);
    await deps.audit.record({
      emailId: null,
      correlationId: `guidance:${v.id}`,
      eventType: GUIDANCE_AUDIT_EVENTS.changed,
      actor: author,
      message: `guidance ${name} version ${v.version} saved by ${author}`,
      details: { scope: name, version: v.version, id: v.id, chars: text.length },
      eventKey: `guidance:${v.id}`,
    });
  }
  return saved;
}

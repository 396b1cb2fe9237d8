/**
 * How a scope is written on the command line, in the inbox's form and in the prompt's headings:
 * `default`, `mailbox:<id>`, `category:<name>`, `mailbox:<id>/category:<name>`.
 */
import { DEFAULT_SCOPE } from './guidance.contract';
import type { GuidanceScope } from './guidance.port';

/** Mailbox ids and category names as the registry and the category list allow them. */
const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export function formatScope(scope: GuidanceScope): string {
  const parts = [...(scope.mailboxId ? [`mailbox:${scope.mailboxId}`] : []), ...(scope.category ? [`category:${scope.category}`] : [])];
  return parts.length === 0 ? DEFAULT_SCOPE : parts.join('/');
}

/** The scope a text names; throws a RangeError saying what is wrong. */
export function parseScope(text: string): GuidanceScope {
  const raw = text.trim();
  if (raw === DEFAULT_SCOPE) return { mailboxId: null, category: null };
  const scope: GuidanceScope = { mailboxId: null, category: null };
  const parts = raw.split('/');
  for (const [i, part] of parts.entries()) {
    const [kind, name = ''] = part.split(':', 2) as [string, string?];
    const ok = NAME.test(name) && ((kind === 'mailbox' && i === 0 && !scope.mailboxId) || (kind === 'category' && !scope.category));
    if (!ok || parts.length > 2) {
      throw new RangeError(
        `scope "${text}": write ${DEFAULT_SCOPE}, mailbox:<id>, category:<name> or mailbox:<id>/category:<name> (lower-case names)`,
      );
    }
    if (kind === 'mailbox') scope.mailboxId = name;
    else scope.category = name;
  }
  return scope;
}

export const sameScope = (a: GuidanceScope, b: GuidanceScope): boolean => a.mailboxId === b.mailboxId && a.category === b.category;

/**
 * The scopes a draft of `mailboxId` falls under, most general first: the installation's default,
 * the mailbox's, the category's, the mailbox's category's. A later one is more specific and wins
 * where they differ (the prompt says so).
 */
export function scopesFor(mailboxId: string, category: string | null): GuidanceScope[] {
  return [
    { mailboxId: null, category: null },
    { mailboxId, category: null },
    ...(category
      ? [
          { mailboxId: null, category },
          { mailboxId, category },
        ]
      : []),
  ];
}

/**
 * The guidance a draft is written under: the current versions of the scopes it falls under
 * (src/guidance/guidance-scope.ts), most general first, cut to GUIDANCE_MAX_CHARS together, with
 * the identifier of the versions used (`g12+g15`), which the draft stores.
 */
import type { DraftGuidance } from '../drafting';
import { GUIDANCE_MAX_CHARS } from './guidance.contract';
import type { GuidanceSource, GuidanceVersion } from './guidance.port';
import { formatScope, sameScope, scopesFor } from './guidance-scope';

/** `g12+g15`: the ids of the versions, in the order they entered the prompt. */
export const guidanceTag = (versions: ReadonlyArray<Pick<GuidanceVersion, 'id'>>): string => versions.map((v) => `g${v.id}`).join('+');

/** The version ids a stored tag names (unknown parts are ignored: the tag is ours, but old rows outlive code). */
export function guidanceIds(tag: string | null | undefined): number[] {
  return (tag ?? '')
    .split('+')
    .map((part) => /^g(\d+)$/.exec(part)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number);
}

/**
 * Fits the versions (most general first) into the budget. The most specific are kept whole first:
 * they are what a team wrote for exactly this kind of mail. The most general that no longer fits
 * is cut at the budget (marked with "…"), and one with no room left is left out and not named.
 */
export function composeGuidance(versions: readonly GuidanceVersion[], budget = GUIDANCE_MAX_CHARS): DraftGuidance | undefined {
  let left = budget;
  const kept: Array<{ v: GuidanceVersion; text: string }> = [];
  for (const v of [...versions].reverse()) {
    const text = v.text.trim();
    if (left <= 1 || text === '') continue;
    kept.unshift({ v, text: text.length <= left ? text : `${text.slice(0, left - 1).trimEnd()}…` });
    left -= Math.min(text.length, left);
  }
  if (kept.length === 0) return undefined;
  return {
    sections: kept.map((k) => ({ scope: formatScope(k.v.scope), version: k.v.version, text: k.text })),
    version: guidanceTag(kept.map((k) => k.v)),
  };
}

/** Of the current versions read, the guidance of a draft of `mailboxId` whose category is taken to be `category` (null: none known). */
export function guidanceAmong(current: readonly GuidanceVersion[], mailboxId: string, category: string | null): DraftGuidance | undefined {
  const ordered = scopesFor(mailboxId, category).flatMap((s) => current.filter((v) => sameScope(v.scope, s)));
  return composeGuidance(ordered);
}

/** The guidance of a draft of `mailboxId` whose category is taken to be `category` (null: none known). */
export async function guidanceForDraft(
  source: GuidanceSource,
  mailboxId: string,
  category: string | null,
): Promise<DraftGuidance | undefined> {
  return guidanceAmong(await source.currentOf(scopesFor(mailboxId, category)), mailboxId, category);
}

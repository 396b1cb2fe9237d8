/**
 * What the draft step knows of the mail's category before a drafter runs, and the team's guidance
 * for the draft (docs/guidance.md).
 *
 * Category guidance must be chosen before the model writes, but the model names its category only
 * in its answer. Asking twice (a category first, then the draft) would double the model's time for
 * every draft; instead the category is the one nearest in meaning to the mail
 * (src/drafting/category-match.ts), which the offline drafter uses as its category anyway. It is
 * only worked out when some category guidance could apply, so installations without any pay no
 * embedder call. When the model later names another category, the draft still records the
 * guidance it was really written under. A caller that needs the category anyway (approved replies
 * of the category as examples) says so with `needCategory`.
 */
import { nearestCategory, UNCLASSIFIED, type Category, type DraftGuidance, type Drafter, questionOf } from '../../drafting';
import { guidanceAmong, type GuidanceSource } from '../../guidance';
import type { Embedder } from '../../retrieval';

export async function draftGuidance(
  deps: { drafter: Drafter; embedder?: Embedder | undefined; guidance?: GuidanceSource | undefined },
  email: { mailboxId: string; subject: string; text: string },
  categories: readonly Category[],
  options: { needCategory?: boolean } = {},
): Promise<{ categoryHint?: string; guidance?: DraftGuidance; category?: string }> {
  const offline = deps.drafter.name === 'offline';
  // One read: whether category guidance exists and which versions apply come from the same rows.
  const current = deps.guidance ? await deps.guidance.currentForMailbox(email.mailboxId) : [];
  const wanted = offline || options.needCategory === true || current.some((v) => v.scope.category !== null);
  const nearest = wanted ? await nearestCategory(deps.embedder, questionOf(email.subject, email.text), categories) : undefined;
  const category = nearest && nearest !== UNCLASSIFIED ? nearest : null;
  const guidance = deps.guidance ? guidanceAmong(current, email.mailboxId, category) : undefined;
  return {
    // A model picks its category from the list; without one, the nearest by meaning is taken.
    ...(offline && nearest ? { categoryHint: nearest } : {}),
    ...(guidance ? { guidance } : {}),
    ...(category ? { category } : {}),
  };
}

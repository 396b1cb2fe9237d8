/**
 * A replayed draft's examples, as the live draft step takes them (src/email/draft/draft-examples.ts) but
 * from the run's own history: the team's replies of earlier pairs, sent before the replayed mail
 * came (no look-ahead), whose mail is of the same category, masked by what that mail tells of its
 * sender. A replay has no person's approvals, so the reply the team sent stands in for an approved
 * draft, as it stands in for the ideal answer in the measures. The category of an earlier pair is
 * the one nearest in meaning to its mail, as the replayed mail's own is worked out before drafting
 * (src/drafting/category-match.ts): the same rule on both sides, independent of what any draft said.
 */
import {
  type Category,
  nearestCategory,
  type DraftExample,
  type Drafter,
  takesExamples,
  type DraftExampleSettings,
  maskedExample,
  questionOf,
} from '../drafting';
import { knownFromMails, type Embedder } from '../retrieval';
import { ownWords } from './replay-measures';
import type { ReplayStore } from './replay-store.port';

/** Earlier pairs looked at per example wanted: bounds the embedder's work per replayed pair. */
const CANDIDATES_PER_EXAMPLE = 10;

export interface ReplayExampleDeps {
  store: Pick<ReplayStore, 'earlierReplies'>;
  drafter: Pick<Drafter, 'name'>;
  embedder?: Embedder | undefined;
  /** DRAFT_EXAMPLES and DRAFT_EXAMPLE_CHARS; absent or a count of 0: no examples. */
  examples?: DraftExampleSettings | undefined;
}

/** True when the replay's drafts take examples: the category must then be known before drafting. */
export function replayExamplesWanted(d: ReplayExampleDeps): boolean {
  return takesExamples(d.examples, d.drafter.name);
}

export async function replayExamples(
  d: ReplayExampleDeps,
  pair: { runId: string; receivedAt: Date },
  category: string | undefined,
  categories: readonly Category[],
): Promise<DraftExample[]> {
  const settings = d.examples;
  if (!settings || !replayExamplesWanted(d) || !category) return [];
  const candidates = await d.store.earlierReplies(pair.runId, pair.receivedAt, settings.count * CANDIDATES_PER_EXAMPLE);
  const examples: DraftExample[] = [];
  for (const c of candidates) {
    if (examples.length >= settings.count) break;
    const own = ownWords(c.reply.body);
    if (!own) continue;
    if ((await nearestCategory(d.embedder, questionOf(c.customer.subject, c.customer.body), categories)) !== category) continue;
    const known = knownFromMails([{ fromName: c.customer.fromName, fromAddress: c.customer.fromAddress, text: c.customer.body }]);
    const text = maskedExample(own, known, settings.maxChars);
    if (text) examples.push({ text });
  }
  return examples;
}

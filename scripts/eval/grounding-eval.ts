/**
 * Claim-level grounding on the labelled set: each offline draft's factual sentences checked as the
 * draft step checks them (src/email/draft/draft-grounding.ts: the context plus the customer's mail), and
 * two faults planted to see whether the check catches them: an invented amount added to the draft
 * and tied to the passage it cites, and each quoted sentence tied to another retrieved file's
 * passage. The offline drafter quotes its passages word for word, so its own figures show that the
 * check does not call a quote unsupported; the planted faults show what it finds.
 */
import { GROUNDING_VERDICTS } from '../../src/drafting/drafting.contract';
import { checkGrounding, needsPerson, type SupportItem } from '../../src/drafting/grounding-check';
import type { DraftContextItem, DraftResult } from '../../src/drafting/drafter.port';
import type { Embedder } from '../../src/retrieval/embedder.port';
import { fileOfSource } from './metrics';

/** An amount and a day no knowledge file of the set names, in the reply's language. */
const INVENTED = {
  de: 'Zusätzlich schreiben wir Ihnen 37,50 EUR gut.',
  en: 'We will also credit you 37.50 EUR for the trouble.',
} as const;

export interface GroundingOutcome {
  claims: number;
  supported: number;
  unsupported: number;
  misTied: number;
  /** The invented amount: whether it was planted (a draft with a cited passage) and kept for a person. */
  invented: { planted: boolean; caught: boolean };
  /** Quoted sentences tied to another file's passage: how many, how many called mis-tied, how many kept for a person. */
  misTie: { planted: number; misTied: number; caught: number };
}

export interface GroundingFigures {
  drafts: number;
  claims: number;
  supported: number;
  unsupported: number;
  misTied: number;
  inventedPlanted: number;
  inventedCaught: number;
  misTiePlanted: number;
  misTieMisTied: number;
  misTieCaught: number;
}

export async function groundOfflineDraft(
  draft: Pick<DraftResult, 'body' | 'claims' | 'language'>,
  context: readonly DraftContextItem[],
  mail: { emailId: string; subject: string; body: string },
  embedder: Embedder | undefined,
): Promise<GroundingOutcome> {
  const items: SupportItem[] = [
    ...context.map((c) => ({ sourceId: c.sourceId, text: c.text, ...(c.title ? { title: c.title } : {}) })),
    { sourceId: mail.emailId, text: mail.body, title: mail.subject, fromCustomer: true },
  ];
  const settings = embedder ? { embedder } : {};
  const claims = draft.claims ?? [];
  const own = await checkGrounding(draft.body, claims, items, settings);
  const outcome: GroundingOutcome = {
    claims: own.claims,
    supported: own.supported,
    unsupported: own.unsupported,
    misTied: own.misTied,
    invented: { planted: false, caught: false },
    misTie: { planted: 0, misTied: 0, caught: 0 },
  };
  const cited = claims[0]?.sourceIds[0];
  if (cited) {
    const sentence = INVENTED[draft.language === 'de' ? 'de' : 'en'];
    const planted = await checkGrounding(`${draft.body}\n\n${sentence}`, [...claims, { sentence, sourceIds: [cited] }], items, settings);
    outcome.invented = { planted: true, caught: needsPerson(planted.sentences.at(-1)?.verdict ?? null) };
  }
  // Each quoted sentence tied instead to the best-ranked passage of another knowledge file.
  const wrongFor = (id: string): string | undefined =>
    context.find((c) => c.kind === 'knowledge' && fileOfSource(c.sourceId) !== fileOfSource(id))?.sourceId;
  const swapped = claims.map((c) => ({ ...c, sourceIds: c.sourceIds.map((id) => wrongFor(id) ?? id) }));
  const moved = swapped.filter((c, i) => c.sourceIds.some((id, k) => id !== claims[i]!.sourceIds[k]));
  if (moved.length > 0) {
    const r = await checkGrounding(draft.body, moved, items, settings);
    const checked = r.sentences.filter((s) => s.verdict !== null && s.citedIds.length > 0);
    outcome.misTie = {
      planted: checked.length,
      misTied: checked.filter((s) => s.verdict === GROUNDING_VERDICTS.misTied).length,
      caught: checked.filter((s) => needsPerson(s.verdict)).length,
    };
  }
  return outcome;
}

export function groundingFigures(outcomes: readonly GroundingOutcome[]): GroundingFigures {
  const sum = (f: (o: GroundingOutcome) => number) => outcomes.reduce((n, o) => n + f(o), 0);
  return {
    drafts: outcomes.length,
    claims: sum((o) => o.claims),
    supported: sum((o) => o.supported),
    unsupported: sum((o) => o.unsupported),
    misTied: sum((o) => o.misTied),
    inventedPlanted: sum((o) => (o.invented.planted ? 1 : 0)),
    inventedCaught: sum((o) => (o.invented.caught ? 1 : 0)),
    misTiePlanted: sum((o) => o.misTie.planted),
    misTieMisTied: sum((o) => o.misTie.misTied),
    misTieCaught: sum((o) => o.misTie.caught),
  };
}

/**
 * The prompt-injection guard of the draft step: the word heuristic (src/drafting/injection-detector.ts)
 * and, when an embedder is there, the intent detector (src/drafting/intent-detector.ts). A finding of
 * either flags the draft. Neither blocks anything: the scoping of the context is the protection,
 * the flag tells the reviewer to read closely.
 */
import type { Embedder } from '../retrieval';
import { errorMessage } from '../platform/errors';
import { detectInjection, type InjectionFinding, type InjectionInput } from './injection-detector';
import { detectIntents, type IntentDetectorSettings } from './intent-detector';

export interface GuardResult {
  findings: InjectionFinding[];
  /** `checked`: intents compared; `off`: no embedder configured; `skipped`: the embedder failed. */
  intentCheck: 'checked' | 'off' | 'skipped';
  /** Why the intent check was skipped (the embedder's error). */
  skippedBecause?: string;
}

/** Heuristic always; intents when an embedder is given. An embedder error never fails the draft. */
export async function guardMail(
  parts: InjectionInput,
  intent: { embedder?: Embedder; settings: IntentDetectorSettings },
): Promise<GuardResult> {
  const findings = detectInjection(parts);
  if (!intent.embedder) return { findings, intentCheck: 'off' };
  try {
    return { findings: [...findings, ...(await detectIntents(intent.embedder, parts, intent.settings))], intentCheck: 'checked' };
  } catch (err) {
    return { findings, intentCheck: 'skipped', skippedBecause: errorMessage(err) };
  }
}

/** One line per finding for the audit message: kind, where, excerpt and, for intents, the score. */
export function describeFindings(findings: InjectionFinding[]): string {
  return findings
    .map((f) => `${f.kind} in ${f.where}${f.score === undefined ? '' : ` (score ${f.score}, cosine ${f.similarity})`} ("${f.excerpt}")`)
    .join('; ');
}

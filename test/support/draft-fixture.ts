import type { NewDraft } from '../../src/email/email-stores.port';

/** A draft as the draft step saves it (an LLM draft in German), for the draft store's tests. */
export function sampleDraft(emailId: string, version: number, body: string, extra: Partial<NewDraft> = {}): NewDraft {
  return {
    id: `${emailId}:draft:${version}`,
    emailId,
    version,
    subject: 'Re: Frage',
    body,
    language: 'de',
    confidence: 0.8,
    drafter: 'openai',
    model: 'gpt-test',
    promptVersion: 'v7',
    contextIds: ['kb-1'],
    flags: [],
    category: 'billing',
    to: { name: 'Kundin', address: 'kundin@example.test' },
    ...extra,
  };
}

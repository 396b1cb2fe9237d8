/**
 * What the customer reads carries no internal source ids: the offline drafter's "(Quelle: …)" and
 * "(Source: …)" notes stay on the reviewer's page and are left out of the reply that is sent.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withoutSourceNotes } from '../../src/drafting/claim-sentences';
import { replyParts } from '../../src/email/send/send.activities';
import type { MailboxEntry } from '../../src/mailboxes/mailbox-registry';

const DRAFT = [
  'Guten Tag Frau Muster,',
  '',
  'die Rechnung RE-2024-117 wird innerhalb von 14 Tagen erstattet (Quelle: knowledge:faq/rechnung.md#1).',
  'Die bisherige Korrespondenz zu diesem Thema haben wir dabei berücksichtigt (Quelle: email-support-INBOX-7-12).',
  '(Source: attachment:RE-2024-0117.pdf#p1, in German)',
  '',
  'Mit freundlichen Grüßen',
].join('\n');

test('citation notes are left out, everything else is kept as written', () => {
  const text = withoutSourceNotes(DRAFT);
  assert.doesNotMatch(text, /Quelle|Source|knowledge:|attachment:|email-support/);
  assert.match(
    text,
    /wird innerhalb von 14 Tagen erstattet\.\nDie bisherige Korrespondenz zu diesem Thema haben wir dabei berücksichtigt\.\n/,
  );
  assert.match(text, /^Guten Tag Frau Muster,\n\n/);
  assert.match(text, /\n\nMit freundlichen Grüßen$/);
  assert.equal(withoutSourceNotes('Our terms (see section 4) apply.'), 'Our terms (see section 4) apply.', 'other parentheses stay');
});

test('the reply that is sent, plain and HTML, carries none of them; the draft keeps them', () => {
  const entry = { language: 'de', smtp: { signature: 'Ihr Support-Team' } } as unknown as MailboxEntry;
  const draft = { approvedBody: null, body: DRAFT, language: 'de' };
  const email = {
    from: { name: 'Erika Muster', address: 'erika@customer.example' },
    date: new Date('2026-12-01T09:00:00Z'),
    text: 'Meine Rechnung (Quelle: meine Buchhaltung) ist doppelt.',
  };
  const parts = replyParts(entry, draft, email);
  assert.doesNotMatch(parts.text!.split('Erika Muster')[0]!, /Quelle|Source|knowledge:/);
  assert.doesNotMatch(parts.html ?? '', /knowledge:|attachment:|email-support/);
  assert.match(parts.text!, /wird innerhalb von 14 Tagen erstattet\./);
  assert.match(parts.text!, /Quelle: meine Buchhaltung/, "the customer's own words in the quote are theirs");
  assert.match(draft.body, /\(Quelle: knowledge:faq\/rechnung\.md#1\)/);
  const plain = replyParts({ ...entry, smtp: { ...entry.smtp, replyFormat: 'text' } } as MailboxEntry, draft, email);
  assert.doesNotMatch(plain.text!, /Quelle|Source/);
});

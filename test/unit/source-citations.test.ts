/**
 * A draft's sources are data, never text the customer reads: the notes a drafter writes into a
 * body ("(Quelle: …)", "[Source: …]", a bare id, "[1]" markers with their list) are taken out and
 * kept as claims beside their sentences; other parentheses stay; an approval whose text names an
 * internal id is refused (the workflow's decision rules) rather than cleaned.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { separateCitations } from '../../src/drafting/source-citations';
import { internalSourceIds, mayNameSourceIds, sourceIdPattern } from '../../src/drafting/source-ids';
import { checkGrounding } from '../../src/drafting/grounding-check';
import { approvedTextRefusal } from '../../src/email/decisions/decision-rules.workflow';

const FAQ = 'knowledge:faq/rechnung.md#1';
const PDF = 'attachment:RE-2024-0117.pdf#p1';
const MAIL = 'email-support@firma.example-INBOX-1796614699-12';

test('the id shapes: knowledge passages, attachment pages, stored mails and our replies to them, cases; not ordinary words', () => {
  const text = `${FAQ}, ${PDF}. ${MAIL}; ${MAIL}:draft:2:sent email-file-0123456789abcdef0123 case-0123456789abcdef01234567`;
  assert.deepEqual(internalSourceIds(text), [
    FAQ,
    PDF,
    MAIL,
    `${MAIL}:draft:2:sent`,
    'email-file-0123456789abcdef0123',
    'case-0123456789abcdef01234567',
  ]);
  assert.deepEqual(internalSourceIds('Our email-based form, your E-Mail-Adresse, knowledge: none, the case-study (see section 4).'), []);
  // An id of another shape is found when the draft was given it.
  assert.deepEqual(internalSourceIds('siehe reply-42.', ['reply-42']), ['reply-42']);
});

test('notes in any form are taken out; each note cites the sentence it stood in, or the lines above it when alone on a line', () => {
  const body = [
    'Guten Tag,',
    '',
    `Die Rückerstattung dauert 3 bis 5 Werktage (Quelle: ${FAQ}). Der Betrag lautet 149,00 EUR [Source: ${PDF}, in German].`,
    'Bitte buchen Sie den Betrag nicht selbst zurück.',
    'Sie erhalten eine Gutschrift.',
    `(Quelle: ${FAQ}, auf Deutsch)`,
    '',
    `Ihre frühere Nachricht ${MAIL} haben wir berücksichtigt. Unsere Preisliste (Quelle: Preisliste 2025) gilt weiter.`,
    '',
    'Mit freundlichen Grüßen',
  ].join('\n');
  const r = separateCitations(body, [FAQ, PDF, MAIL]);
  assert.equal(
    r.body,
    [
      'Guten Tag,',
      '',
      'Die Rückerstattung dauert 3 bis 5 Werktage. Der Betrag lautet 149,00 EUR.',
      'Bitte buchen Sie den Betrag nicht selbst zurück.',
      'Sie erhalten eine Gutschrift.',
      '',
      'Ihre frühere Nachricht haben wir berücksichtigt. Unsere Preisliste (Quelle: Preisliste 2025) gilt weiter.',
      '',
      'Mit freundlichen Grüßen',
    ].join('\n'),
  );
  assert.deepEqual(internalSourceIds(r.body, [FAQ, PDF, MAIL]), []);
  assert.deepEqual(r.removedIds, [FAQ, PDF, MAIL]);
  const cites = new Map(r.claims.map((c) => [c.sentence, c.sourceIds]));
  assert.deepEqual(cites.get('Die Rückerstattung dauert 3 bis 5 Werktage.'), [FAQ]);
  assert.deepEqual(cites.get('Der Betrag lautet 149,00 EUR.'), [PDF]);
  // Alone on its line: the lines above it since the last note.
  assert.deepEqual(cites.get('Bitte buchen Sie den Betrag nicht selbst zurück.'), [FAQ]);
  assert.deepEqual(cites.get('Sie erhalten eine Gutschrift.'), [FAQ]);
  assert.deepEqual(cites.get('Ihre frühere Nachricht haben wir berücksichtigt.'), [MAIL]);
  assert.ok(!r.claims.some((c) => /Guten Tag|Grüßen/.test(c.sentence)), 'greeting and closing cite nothing');
});

test('"[1]" markers and their source list: the list goes, each marked sentence keeps its ids; a body without ids is left as it is', () => {
  const body = `Hello,\n\nWe refund within 5 business days [1]. Our hotline is open Monday to Friday [2]. See our terms [3].\n\nBest regards\n\nSources:\n[1] ${FAQ}\n[2]: knowledge:faq/telefon.md#1 (Telefon)`;
  const r = separateCitations(body, [], [{ sentence: `We refund within 5 business days (Source: ${FAQ}).`, sourceIds: [FAQ] }]);
  assert.equal(
    r.body,
    'Hello,\n\nWe refund within 5 business days. Our hotline is open Monday to Friday. See our terms [3].\n\nBest regards',
  );
  assert.deepEqual(r.claims, [
    { sentence: 'We refund within 5 business days.', sourceIds: [FAQ] },
    { sentence: 'Our hotline is open Monday to Friday.', sourceIds: ['knowledge:faq/telefon.md#1'] },
  ]);
  const plain = 'Hello,\n\nOur terms (see section 4) apply [NAME].  \n\n\nBest regards';
  assert.equal(separateCitations(plain, [FAQ]).body, plain, 'nothing taken out: not even its spacing changes');
});

test('a citation taken out of the text still grounds its sentence', async () => {
  const r = separateCitations(`Hello,\n\nWe refund the duplicate payment within 5 business days (Source: ${FAQ}).\n\nBest regards`, [FAQ]);
  const items = [
    { sourceId: FAQ, text: 'If an order was charged twice, we refund the duplicate payment within 5 business days.' },
    { sourceId: 'knowledge:returns.md#1', text: 'You can return an item within 30 days of delivery.' },
  ];
  const checked = await checkGrounding(r.body, r.claims, items);
  const claim = checked.sentences.find((s) => s.verdict !== null)!;
  assert.deepEqual([claim.verdict, claim.citedIds, claim.supportedBy], ['supported', [FAQ], [FAQ]]);
  // Tied to the wrong passage in the text, the check says so.
  const wrong = separateCitations(
    r.body.replace('days.', 'days (Quelle: knowledge:returns.md#1).'),
    items.map((i) => i.sourceId),
  );
  const misTied = (await checkGrounding(wrong.body, wrong.claims, items)).sentences.find((s) => s.verdict !== null)!;
  assert.equal(misTied.verdict, 'mis_tied');
});

test('an approval whose text names an internal id is refused, not cleaned; other text is approved as written', () => {
  const refusal = approvedTextRefusal('approve', { draftId: 'd1', by: 'anna', body: `Die Frist beträgt 14 Tage (Quelle: ${FAQ}).` });
  assert.match(
    refusal ?? '',
    /^approve refused: "body" names internal source ids \(knowledge:faq\/rechnung\.md#1\); the customer must not read them/,
  );
  assert.equal(
    approvedTextRefusal('approve', { draftId: 'd1', by: 'anna', body: 'Die Frist beträgt 14 Tage (Quelle: Preisliste 2025).' }),
    null,
  );
  assert.equal(approvedTextRefusal('approve', { draftId: 'd1', by: 'anna' }), null);
  assert.equal(approvedTextRefusal('reject', { draftId: 'd1', by: 'anna', reason: `wrong: ${FAQ}` }), null);
});

test('the cheap look before the patterns are built never misses an id the full pattern finds', () => {
  // Texts put together from ids, near-ids and the letters around them, in a fixed pseudo-random order.
  const known = ['reply-42', 'knowledge:faq/rechnung.md#1', '  '];
  const parts = [
    FAQ,
    PDF,
    MAIL,
    `${MAIL}:draft:2:sent`,
    'reply-42',
    'xreply-42',
    'reply-42x',
    'email-',
    'knowledge:',
    'case-0123',
    'case-0123456789abcdef01234567',
    'email-file-0123456789abcdef',
    'Kündigung',
    'é',
    '_',
    ' ',
    '\n',
    '(Quelle: ',
    ')',
    '[1]',
    '#2',
  ];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % parts.length;
  let said = 0;
  for (let i = 0; i < 5_000; i++) {
    const text = Array.from({ length: 1 + (i % 6) }, () => parts[next()]).join('');
    const found = [...text.matchAll(sourceIdPattern(known))].length > 0;
    if (found) assert.ok(mayNameSourceIds(text, known), `missed an id in ${JSON.stringify(text)}`);
    if (!mayNameSourceIds(text, known)) said += 1;
  }
  assert.ok(said > 500, 'the look also says no, often');
  // Nothing to take out: the body is returned as it stands, the drafter's claims tidied as always.
  const body = 'Guten Tag,\r\n\r\ndie Frist beträgt drei Monate (siehe Vertrag).  \r\n';
  const cut = separateCitations(body, [MAIL], [{ sentence: 'Die Frist beträgt drei Monate .', sourceIds: [FAQ] }]);
  assert.equal(cut.body, body);
  assert.deepEqual(cut.removedIds, []);
  assert.deepEqual(cut.claims, [{ sentence: 'Die Frist beträgt drei Monate.', sourceIds: [FAQ] }]);
});

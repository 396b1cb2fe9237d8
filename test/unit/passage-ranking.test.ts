import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rankPassages } from '../../src/retrieval/passage-ranking';

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

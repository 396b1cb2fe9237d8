import assert from 'node:assert/strict';
import { test } from 'node:test';
import { knownFromMails } from '../../src/retrieval/known-personal-data';
import { maskPersonalData } from '../../src/retrieval/mask-personal-data';
import { REPLY_SAMPLE, type TokenKind } from '../fixtures/masking/reply-sample';
import { hostileKnownMail, letterRun } from '../support/hostile-inputs';

/** True when the token (letters without case, digits with any spacing) is still in the text. */
function survives(text: string, token: string): boolean {
  if (text.toLowerCase().includes(token.toLowerCase())) return true;
  const d = token.replace(/\D/g, '');
  return /^[\d\s]+$/.test(token) && d.length >= 4 && text.replace(/\D/g, ' ').split(/\s+/).includes(d);
}

function measure(withKnown: boolean) {
  const survivors: Array<{ lang: string; kind: TokenKind; token: string }> = [];
  let total = 0;
  for (const s of REPLY_SAMPLE) {
    const out = maskPersonalData(s.reply, withKnown ? knownFromMails([s.theirMail]) : undefined);
    for (const [kind, token] of s.personal) {
      total++;
      if (survives(out, token)) survivors.push({ lang: s.lang, kind, token });
    }
  }
  return { total, survivors, share: (total - survivors.length) / total };
}

test('the sample is large and multilingual enough to measure', () => {
  const tokens = REPLY_SAMPLE.reduce((n, s) => n + s.personal.length, 0);
  assert.ok(REPLY_SAMPLE.length >= 12, `${REPLY_SAMPLE.length} replies`);
  assert.ok(tokens >= 60, `${tokens} tokens`);
  for (const lang of ['de', 'en', 'fr', 'es'])
    assert.ok(
      REPLY_SAMPLE.some((s) => s.lang === lang),
      lang,
    );
});

test('masked by what is known plus patterns: at least 95 % of personal tokens gone, no address or IBAN', () => {
  const { total, survivors, share } = measure(true);
  const patternsOnly = measure(false);
  // The figure for the documentation, with what survived.
  console.log(
    `masking: ${total - survivors.length} of ${total} personal tokens masked (${(share * 100).toFixed(1)} %); ` +
      `patterns alone ${(patternsOnly.share * 100).toFixed(1)} %; survived: ${JSON.stringify(survivors)}`,
  );
  assert.ok(share >= 0.95, `only ${(share * 100).toFixed(1)} % masked; survived: ${JSON.stringify(survivors)}`);
  assert.deepEqual(
    survivors.filter((s) => s.kind === 'email' || s.kind === 'iban'),
    [],
  );
});

test('patterns alone catch every e-mail address, IBAN, card ending and KD-number of the sample', () => {
  const { survivors } = measure(false);
  assert.deepEqual(
    survivors.filter((s) => ['email', 'iban', 'card'].includes(s.kind) || /^KD-/.test(s.token)),
    [],
  );
});

test('a masked reply stays readable: no placeholder eats the support prose around it', () => {
  const s = REPLY_SAMPLE[0]!;
  const out = maskPersonalData(s.reply, knownFromMails([s.theirMail]));
  assert.match(out, /^Hi \[name\],/);
  assert.match(out, /thank you for your message/);
  assert.match(out, /card ending \[card digits\]/);
  assert.equal(maskPersonalData(out, knownFromMails([s.theirMail])), out);
});

test('known data from a hostile mail (regex characters, huge names) masks literally', () => {
  // Each known value becomes an escaped pattern: text, not regex syntax, so its matching stays
  // linear whatever the mail put in it (timed by `npm run bench -- --hostile`, not here).
  const mail = hostileKnownMail();
  const known = knownFromMails([mail]);
  const out = maskPersonalData('Nothing personal here: a.b and (.*) stay as they are.', known);
  assert.equal(out, 'Nothing personal here: a.b and (.*) stay as they are.');
  // Where the values do occur, they are masked as written, and only there.
  assert.equal(maskPersonalData(`Signed by ${mail.fromName} today.`, known), 'Signed by [name] today.');
  assert.equal(maskPersonalData('Write to x+y@(evil).example or (.*)+$ please.', known), 'Write to [email] or [address] please.');
  assert.equal(maskPersonalData('Hello a.*(b)+[c] and a.X(b)[c]', known), 'Hello a.*(b)+[c] and a.X(b)[c]');
  // A long run of letters without an @ is no address (each start of the address pattern used to scan it to the end).
  assert.equal(maskPersonalData(letterRun()), letterRun());
});

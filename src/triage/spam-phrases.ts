/**
 * Phrases of unsolicited mail in English and German, with the points each adds to the built-in
 * spam check (src/triage/spam-content.ts). Written for this product from the kinds of mail every
 * filter knows: prizes and lotteries, advance-fee fraud, pills, easy money, account "verification"
 * that phishes for a password, and the marketing boilerplate that comes with them.
 *
 * The weights are small on purpose: a customer writes "kostenlos" or "password" too. Only several
 * signs together reach the threshold, and the phrases that a support request would use in its
 * ordinary sense ("my account is locked") are not here; those that phish say it to the reader
 * ("your account has been suspended", "verify your account").
 */

export interface SpamPhrase {
  pattern: RegExp;
  points: number;
  /** Short name for the reason line. */
  name: string;
}

const p = (name: string, points: number, pattern: RegExp): SpamPhrase => ({ name, points, pattern });

export const SPAM_PHRASES: readonly SpamPhrase[] = Object.freeze([
  // Prizes and lotteries.
  p(
    'prize',
    2.5,
    /\b(you('ve| have) (been selected|won)|winning (notification|number)|claim your (prize|reward|winnings)|lottery (winner|program|award)|sweepstakes?)\b/i,
  ),
  p(
    'prize-de',
    2.5,
    /\b(sie haben (gewonnen|einen? [\wäöü]+ gewonnen)|gewinnbenachrichtigung|ihr gewinn wartet|lotterie[- ]?gewinn|gewinnspiel)\b/i,
  ),
  // Advance-fee fraud.
  p(
    'advance-fee',
    3,
    /\b(next of kin|beneficiary of (the|this) (fund|sum)|urgent business (proposal|assistance|relationship)|strictly confidential (transaction|business)|transfer of (the )?(sum|fund)s?)\b/i,
  ),
  p(
    'advance-fee-de',
    3,
    /\b(erbschaft von|nächste[rn]? angehörige[rn]?|vertrauliche (transaktion|geschäftsbeziehung)|überweisung der summe)\b/i,
  ),
  p(
    'advance-fee-2',
    2,
    /\b(western union|moneygram|atm (master)?card|compensation (fund|payment)|united nations (payment|compensation)|payment notification|remit(tance)? (of|to you)|dear (beneficiary|sir\/madam)|diplomatic (courier|agent))\b/i,
  ),
  p('millions', 2, /\b\d+([.,]\d+)? ?(million|millionen|mio\.?) ?(us ?)?(dollars?|usd|euros?|eur|pounds?)\b/i),
  // Pills and the body.
  p(
    'pills',
    3,
    /\b(v[i1!|]agra|c[i1!|]alis|levitra|pharmacy|penis|erection|weight ?loss|lose (\d+ )?(lbs|pounds|weight)|potenzmittel|abnehmen ohne)\b/i,
  ),
  p('pills-obfuscated', 3, /\bv[\s._-]?[i1!|][\s._-]?a[\s._-]?g[\s._-]?r[\s._-]?a\b/i),
  // Easy money and marketing boilerplate.
  p(
    'money',
    2,
    /\b(make money (fast|from home|online)|work(ing)? from home|earn (\$|extra|up to)|extra income|financial freedom|double your (money|income)|get rich|schnell(es)? geld|geld verdienen von zu hause|kredit ohne schufa)\b/i,
  ),
  p(
    'offer',
    1,
    /\b(100 ?% (free|guaranteed|satisfied)|risk[- ]free|no obligation|act now|limited time (offer)?|order (now|today)|special promotion|lowest prices?|best prices?|dear friend|this is not (a )?spam|not junk mail|nur heute|unverbindlich und kostenlos|jetzt zugreifen)\b/i,
  ),
  p(
    'sale',
    1,
    /\b(\d{2} ?% off|biggest sale|hot deals?|exclusive (offers?|deals?)|coupon code|free shipping|dear valued (customer|subscriber|member))\b/i,
  ),
  p(
    'bulk',
    1.5,
    /\b(view (this )?(e-?mail|newsletter) in (your )?browser|having trouble (viewing|reading) this e-?mail|im browser (ansehen|anzeigen|öffnen)|wird diese e-?mail nicht (richtig|korrekt) angezeigt)\b/i,
  ),
  p(
    'dating',
    2.5,
    /\b(look(ing)? (up|for) (a )?(goodly|good|nice|serious|real) man|i can send you my (picture|photo|pics)|lonely (woman|girl|lady)|beautiful (russian|ukrainian) (woman|women|girls?))\b/i,
  ),
  p('click', 1, /\b(click (here|below|the link)|hier klicken|jetzt klicken|klicken sie (hier|auf den link))\b/i),
  p(
    'remove',
    1.5,
    /\b(to be removed|remove me|removal instructions|to unsubscribe|opt[- ]?out|you (are receiving|received) this (e-?mail|message) because|wenn sie keine weiteren)\b/i,
  ),
  p('free', 1, /\b(free (trial|gift|money|access|offer)|for free!|kostenlos(e|en)? (testen|geschenk|angebot)|gratis)\b/i),
  // Not "casino" alone: a French supermarket chain is called that.
  p(
    'casino',
    2.5,
    /\b(online[- ]casino|casino (bonus|games|online)|online (betting|poker)|adult (site|content|videos?)|hot (singles|girls)|porn|horny)\b/i,
  ),
  p(
    'cold-outreach',
    2,
    /\b(dear (potential|potencial|prospective) (partner|customer|buyer)|we are (a )?(professional|leading) (manufacturer|supplier|factory)|factory direct|oem (service|manufacturer))\b/i,
  ),
  p(
    'crypto',
    2,
    /\b(bitcoin (wallet|address)|btc (wallet|address)|crypto(currency)? (investment|profit|trading bot)|send (the )?(bitcoin|btc))\b/i,
  ),
  p(
    'extortion',
    3,
    /\b(i (have )?(recorded|hacked) (you|your)|your (webcam|device) (was|has been) (hacked|infected)|pay (me|the ransom))\b/i,
  ),
  // Phishing: what an attacker says to the reader about the reader's account.
  p(
    'phish',
    2.5,
    /\b(your (account|mailbox|password) (has been|was|will be) (suspended|locked|limited|closed|disabled|deactivated|expired?)|verify your (account|identity|mailbox)|confirm your (account|identity|billing)|update your (billing|payment|account) (information|details))\b/i,
  ),
  p(
    'phish-de',
    2.5,
    /\b(ihr (konto|postfach|zugang) (wurde|wird) (gesperrt|eingeschränkt|deaktiviert|geschlossen)|bestätigen sie ihre (identität|kontodaten|zahlungsdaten)|verifizieren sie ihr (konto|postfach)|aktualisieren sie ihre (zahlungs|konto)daten)\b/i,
  ),
  // Search-engine and marketing services nobody asked for.
  p(
    'seo',
    2,
    /\b(search engine (optimi[sz]ation|ranking)|top (\d+ )?rankings?|website traffic|first page of google|email marketing (list|campaign)|bulk e-?mail|targeted (e-?mail )?leads)\b/i,
  ),
]);

/** The Generic Test for Unsolicited Bulk Email: a filter's test string, spam by definition. */
export const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';

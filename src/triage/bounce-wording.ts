/**
 * A delivery failure told by what it says: a mail server or gateway whose notice carries no
 * delivery-status part, no X-Failed-Recipients and comes from an address that is not
 * MAILER-DAEMON/postmaster (a virus scanner's "Mail could not be delivered" from imss@, a
 * malformed `Postmaster\@…` sender, a list's "[list] Mail delivery failed"). Pure helper of
 * src/triage/triage.ts, run after the header and sender rules of a bounce.
 *
 * A customer writes about a bounce too ("my mail to you could not be delivered, 550 user
 * unknown — can you check?"), so no single sign decides: the subject must name a failed or
 * delayed delivery and the notice's own text must say it with a server's words (an SMTP reply or
 * status code, "unable to deliver", "user unknown", "konnte nicht zugestellt werden"), and a text
 * that asks its reader something in the first person is a person's.
 */
import { ownText, words, type WordingSigns } from './machine-wording';

// After an optional list tag ("[languse] "), anchored: "Fwd: Mail delivery failed" is a person.
const SUBJECT_FAILED = new RegExp(
  [
    String.raw`^(?:\[[^\]]{1,40}\]\s*)?(?:`,
    [
      String.raw`(?:permanent\s+|temporary\s+)?(?:(?:mail|message|e-?mail)\s*)?delivery\s+(?:failed|failure|warning|error|problem|delayed|notification|report)`,
      String.raw`(?:mail|message|e-?mail)\s+(?:error|could not be delivered|not delivered|delayed|undeliverable|returned)`,
      String.raw`failed\s+(?:mail|message|delivery)`,
      String.raw`warning:\s+(?:message\b.*\b(?:delayed|not (?:yet )?been delivered)|(?:\S.*)?\buser unknown)`,
      String.raw`(?:e-?mail|nachricht)\s+(?:konnte nicht zugestellt werden|nicht zustellbar)`,
      String.raw`zustellung\s+(?:verz(?:ö|oe)gert|fehlgeschlagen)`,
      String.raw`(?:fehler|problem)\s+bei\s+der\s+zustellung`,
    ].join('|'),
    ')',
  ].join(''),
  'i',
);

// A server's words about the delivery, in the notice's own text.
const SERVER_SAYS = [
  /\b[245]\d\d[ -][245]\.\d{1,3}\.\d{1,3}\b/, // an SMTP reply with its enhanced status code
  /\b(?:RCPT TO|MAIL FROM)\s*(?::\s*)?</i,
  /\b(?:unable|failed) to deliver\b/i,
  /\bcould not be delivered\b/i,
  /\bhas not (?:yet )?been delivered\b/i,
  /\bdelivery (?:to (?:the following|this) (?:recipients?|address(?:es)?) )?(?:has )?(?:failed|been (?:delayed|postponed))\b/i,
  /\bhas been (?:delayed|postponed)\b/i,
  /\b(?:user|recipient|mailbox|address) (?:unknown|not found|unavailable|full|does not exist)\b/i,
  /\bno such (?:user|mailbox|recipient)\b/i,
  /\bpermanent(?:ly)? (?:error|failure|fatal)\b/i,
  /\b(?:will|shall) (?:continue to )?(?:try|retry) (?:to deliver|delivering)\b/i,
  /\bkonnte (?:nicht|leider nicht) (?:zugestellt|übermittelt|uebermittelt) werden\b/i,
  /\bzustellung (?:an|der nachricht)\b[^.!?]{0,60}\b(?:fehlgeschlagen|verz(?:ö|oe)gert)\b/i,
  /\bempf(?:ä|ae)nger(?:adresse)? (?:unbekannt|existiert nicht)\b/i,
];

// A person asking their reader: "can you check", "könnten Sie", "I tried to write to you".
const PERSON_ASKS =
  /\b(?:can|could|would) you\b|\bplease (?:help|check|advise|let me know)\b|\bi (?:tried|wanted|have tried) to\b|\b(?:können|könnten|koennen|koennten) sie\b|\bich (?:habe|hatte) (?:versucht|ihnen)\b/i;

// A gateway that answers with the original subject puts the failure after it ("RE: <subject> :
// non remis (delivery failed)"): failure words anywhere in the subject, for the short-notice rule.
const SUBJECT_FAILED_ANYWHERE =
  /\b(?:delivery (?:failed|failure)|undeliverable|undelivered|not delivered|could not be delivered|non remis|unzustellbar|nicht zustellbar|nicht zugestellt)\b/i;
// The notice tells its reader that their message did not reach an address it names.
const ADDRESS = String.raw`<?[^\s@<>()]+@[^\s@<>()]+\.[a-z]{2,}`;
const NOT_DELIVERED_TO = [
  new RegExp(
    String.raw`\byour (?:message|mail|e-?mail)\b[^.!?]{0,60}?\b(?:could not|cannot|can't|was not|has not been|wasn't) (?:be )?delivered to\s*(?::\s*)?${ADDRESS}`,
    'i',
  ),
  new RegExp(
    String.raw`\bihre (?:nachricht|e-?mail|mail)\b[^.!?]{0,60}?\ban\s+${ADDRESS}>?[^.!?]{0,40}?\b(?:konnte|kann|wurde) nicht zugestellt`,
    'i',
  ),
];
// A short notice: a gateway says what failed and stops.
const SHORT_NOTICE_WORDS = 60;
// A person writes in the first person ("I tried", "my mail", "ich habe"); a gateway's notice does not.
const FIRST_PERSON = /\b(?:i|i'm|i've|my|me|ich|mein|meine|meinen|mir|mich)\b/i;

/** A short gateway notice that a message was not delivered to an address, its subject saying so anywhere. */
function shortFailureNotice(m: WordingSigns): string | null {
  const subject = SUBJECT_FAILED_ANYWHERE.exec(m.subject)?.[0];
  if (!subject) return null;
  const text = ownText(m.body);
  if (!text || words(text) > SHORT_NOTICE_WORDS || text.includes('?') || FIRST_PERSON.test(text)) return null;
  const said = NOT_DELIVERED_TO.map((p) => p.exec(text)?.[0]).find((s): s is string => Boolean(s));
  return said ? `short delivery-failure notice: subject "…${subject}" + "${said.trim().slice(0, 60)}"` : null;
}

/** The reason a notice is a bounce by its wording, or null. */
export function bounceWording(m: WordingSigns): string | null {
  const subject = SUBJECT_FAILED.exec(m.subject.trim())?.[0];
  if (!subject) return shortFailureNotice(m);
  const text = ownText(m.body);
  if (!text) return null;
  const said = SERVER_SAYS.map((p) => p.exec(text)?.[0]).find((s): s is string => Boolean(s));
  if (!said) return null;
  if (text.includes('?') && PERSON_ASKS.test(text)) return null;
  return `delivery-failure wording: subject "${subject.trim().slice(0, 60)}" + "${said.trim().slice(0, 60)}"`;
}

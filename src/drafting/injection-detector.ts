/**
 * Flags mail that tries to steer the assistant: instructions to ignore its rules, to forward or
 * exfiltrate mail, to reveal other customers' data, credentials or bank details, or its own prompt,
 * or to change recipients — also paraphrased, and also in text the HTML hides from the reader.
 * A heuristic, German and English: it marks drafts for the reviewer, it does not block anything.
 */
import { normaliseForGuard } from './mail-regions';
import { obfuscation, STRUCTURAL_PATTERNS } from './injection-structure';

/**
 * `tampering`: the answer's content or form dictated (a planted link or string, an encoding);
 * `obfuscation`: characters that only hide text (bidi overrides, tag characters, look-alike letters
 * inside a Latin word, zero-width characters splitting one).
 */
export type HeuristicKind = 'override' | 'exfiltration' | 'disclosure' | 'recipient' | 'tampering' | 'obfuscation';

/**
 * One reason to flag a mail: a heuristic kind, or `intent:<label>` from the intent detector
 * (src/drafting/intent-detector.ts), which also gives the (centred) cosine to the nearest example of the
 * intent and the score compared with INJECTION_INTENT_THRESHOLD.
 */
export interface InjectionFinding {
  kind: HeuristicKind | `intent:${string}`;
  where: string;
  excerpt: string;
  similarity?: number;
  score?: number;
}

/** The parts of a mail to check; `hiddenHtml` (text the HTML hides) is reported as `hidden_html`. */
export interface InjectionInput {
  subject?: string;
  body?: string;
  quoted?: string;
  attachments?: string;
  context?: string;
  hiddenHtml?: string;
  [part: string]: string | undefined;
}

interface Pattern {
  kind: HeuristicKind;
  re: RegExp;
  /** A match whose text also matches this is ordinary mail (the customer's own data or words). */
  unless?: RegExp;
  /** A match counts only when its sentence also matches this (the object of the act). */
  needs?: RegExp;
}

// Building blocks. `[^.?!\n]` keeps a match inside one sentence.
const S = '[^.?!\\n]';
const ADDRESS = '[\\w.+-]+@[\\w-]+\\.[\\w.-]+';
/** The customer speaking of their own mail, data or earlier instructions. */
const OWN =
  /\b(my|our|mine|meine[nmrs]?|unsere[nmrs]?)\s+(own\s+|eigene[nmrs]?\s+)?(previous|prior|earlier|last|old|vorherige[nmrs]?|letzte[nmrs]?|bisherige[nmrs]?|alte[nmrs]?|e-?mails?|mails?|nachrichten?|instructions?|anweisungen|angaben)\b/i;
/** Secrets and bank data nobody may mail around. */
const SECRET_EN =
  '(passwords?|passcodes?|pins?|tans?|one-time (pass)?codes?|2fa codes?|security codes?|credentials|login (details|data|credentials|info(rmation)?)|api keys?|access tokens?)';
const BANK_EN =
  '(iban|bic|bank (details|account( number)?|information)|account (details|number)|card numbers?|credit card( details| numbers?)?)';
const SECRET_DE =
  '(passw[oö]rt(e|er)?|kennw[oö]rt(e|er)?|pins?|tans?|zugangsdaten|anmeldedaten|login-?daten|api-?schlüssel|sicherheitscodes?)';
const BANK_DE = '(iban|bic|kontodaten|bankverbindung|bankdaten|kontonummer|kreditkarten(daten|nummer))';
/** Someone else than the writer. */
const THIRD_EN =
  '(my (colleague|co-?worker|boss|manager|employee|wife|husband|partner|neighbou?r|friend|brother|sister)|mr\\.?|mrs\\.?|ms\\.?|dr\\.?|another (customer|client|user|person)|other (customers?|clients?|users?|people|persons?)|someone else|the (previous|last|other) (customer|client|sender|person))';
const THIRD_DE =
  '(herrn?|frau|dr\\.?|meine[mrns]? (kollegen|kollegin|chef|chefin|mitarbeiter(in)?|frau|mann|partner(in)?|nachbarn?)|andere[nmrs]? (kunden|kundin|nutzer(in)?)|einem anderen (kunden|nutzer)|einer anderen (kundin|nutzerin)|dritte[nr]?)';
const ASK_EN =
  '(include|add|attach|send|tell|give|provide|share|reveal|show|list|print|paste|write|put|mention|forward|disclose|look up|what|which)';
const ASK_DE =
  '(fügen?|füge|beifügen|hinzufügen|anhängen|senden?|sende|schicken?|schick|nennen?|nenne|teilen?|teile|mitteilen|geben?|gib|verraten?|verrate|zeigen?|zeige|schreiben?|schreibe|sagen?|sage|welche[ns]?|was)';
/** The password talked about only in order to reset it: ordinary support mail. */
const RESET = `(?!${S}{0,25}(zurück|reset|recover|vergessen|forgot|änder|change|link|expired|abgelaufen|funktioniert|work|polic|richtlinie|requirement|anforderung|regel|rule|manager|feld|field))`;

const PATTERNS: Pattern[] = (
  [
    // Override: telling the assistant to drop what it was told.
    {
      kind: 'override',
      re: new RegExp(
        `\\b(ignore|disregard|forget|override|bypass)\\b${S}{0,40}\\b(previous|prior|above|all|any|your|system|earlier|original)\\b${S}{0,30}\\b(instructions?|rules?|prompts?|guidelines|directives|programming|constraints|requests|tasks|commands|directions)`,
        'i',
      ),
      unless: OWN,
    },
    {
      kind: 'override',
      re: new RegExp(
        `\\b(ignore|disregard|forget)\\b${S}{0,25}\\b(what|everything|anything|all)\\b${S}{0,15}\\byou('ve| have)? (been|were) (told|instructed|given|asked)`,
        'i',
      ),
    },
    {
      kind: 'override',
      re: new RegExp(
        `\\b(ignoriere|ignorieren sie|vergiss|vergessen sie|missachte|missachten sie|übergehe|übergehen sie|verwirf|verwerfen sie)\\b${S}{0,40}\\b(alle|vorherigen?|bisherigen?|deine|ihre|obigen?|früheren?|ursprünglichen?)\\b${S}{0,30}\\b(anweisungen|regeln|instruktionen|vorgaben|befehle|richtlinien)`,
        'i',
      ),
      unless: OWN,
    },
    {
      kind: 'override',
      re: new RegExp(
        `\\b(ignoriere|ignorieren sie|vergiss|vergessen sie)\\b${S}{0,25}\\b(was|alles)\\b${S}{0,25}\\b(dir|ihnen|man)\\b${S}{0,25}\\b(gesagt|aufgetragen|vorgegeben|befohlen)`,
        'i',
      ),
    },
    {
      kind: 'override',
      re: /\b(you are now|from now on,? you|act as|pretend (to be|you are)|new instructions?|system prompt:|developer mode|du bist (jetzt|ab sofort|nun)|ab sofort bist du|sie sind (jetzt|ab sofort|nun) (ein|eine|der|die|mein)|ab sofort sind sie|neue anweisung(en)?|tu so, als|do not tell (the )?(reviewer|human|operator|support)|sag(e)? (dem|den) (prüfer|menschen|mitarbeiter) nichts)\b/i,
    },
    {
      kind: 'override',
      re: new RegExp(
        `\\b(ignore|disregard|forget)\\b${S}{0,20}\\b(instructions?|rules?|guidelines|prompts?)\\s+(above|before|given|you (were|have been) given)`,
        'i',
      ),
      unless: OWN,
    },
    // Words addressed to the model itself: src/drafting/injection-structure.ts. A line opened with
    // a role label ("assistant:") poses as the conversation with the model.
    { kind: 'override', re: /^[^\S\n\r\u2028\u2029]*(assistant|ai|system|bot|llm|model|assistent|ki)\s*:\s*\S/im },
    // Exfiltration: mail leaving for somewhere else.
    {
      kind: 'exfiltration',
      re: new RegExp(
        `\\b(forward|send|bcc|cc|copy|export)\\b${S}{0,40}\\b(all|every|other|previous|these|the)\\b${S}{0,30}\\b(e-?mails?|messages?|conversations?|threads?|correspondence|inbox)\\b${S}{0,40}\\bto\\b`,
        'i',
      ),
    },
    {
      kind: 'exfiltration',
      re: new RegExp(
        `\\b(forward|send|bcc|cc|copy|export)\\b${S}{0,40}\\b(all|every|other|previous)\\b${S}{0,30}\\b(e-?mails?|messages?|conversations?|threads?|correspondence)\\b`,
        'i',
      ),
      unless: OWN,
    },
    {
      kind: 'exfiltration',
      re: new RegExp(
        `\\b(leite|leiten|sende|senden|schicke|schicken|kopiere|kopieren|exportiere|exportieren)\\b${S}{0,40}\\b(alle|sämtliche|andere[n]?|bisherigen?)\\b${S}{0,30}\\b(e-?mails?|nachrichten|mails|konversationen|korrespondenz|postfach)\\b`,
        'i',
      ),
      unless: OWN,
    },
    { kind: 'exfiltration', re: /\b(auto-?forward|forwarding rule|weiterleitungsregel|automatische weiterleitung)\b/i },
    // Disclosure: other people's data, secrets, bank details, the assistant's own prompt.
    {
      kind: 'disclosure',
      re: new RegExp(
        `\\b(reveal|show|list|tell me|print|share|repeat|what did|what has|what are)\\b${S}{0,40}\\b(other customers?|other clients?|all customers?|another customer|the other customer|your (\\w+ )?prompt|your (\\w+ )?instructions|internal (notes|data))`,
        'i',
      ),
    },
    {
      kind: 'disclosure',
      re: new RegExp(
        `\\b(zeige|zeigen|nenne|nennen|verrate|verraten|gib|geben|liste|sag|sagen)\\b${S}{0,40}\\b(andere[rn]? kunden|alle kunden|deinen? (system-?)?prompt|ihre? (system-?)?prompt|deine anweisungen|interne[n]? (daten|notizen))`,
        'i',
      ),
    },
    {
      kind: 'disclosure',
      re: new RegExp(
        `\\b(was|welche)\\b${S}{0,30}\\b(der|die|ein|eine) andere[n]? (kunde|kundin|absender(in)?)\\b${S}{0,30}\\b(geschrieben|gesagt|bestellt|gefragt|geschickt)`,
        'i',
      ),
    },
    // Secrets or bank data asked for as something to put in the reply ("include the new password").
    {
      kind: 'disclosure',
      re: new RegExp(
        `\\b${ASK_EN}\\b${S}{0,60}\\b(the|his|her|their|its|current|new|old|stored|saved|existing|admin|all)\\s+(new\\s+|current\\s+|stored\\s+)?${SECRET_EN}\\b${RESET}`,
        'i',
      ),
    },
    {
      kind: 'disclosure',
      re: new RegExp(
        `\\b${ASK_DE}\\b${S}{0,60}\\b(das|die|den|dem|sein|seine|ihr|ihre|neue[ns]?|aktuelle[ns]?|alte[ns]?|gespeicherte[ns]?|hinterlegte[ns]?|alle)\\s+(neue[ns]?\\s+|aktuelle[ns]?\\s+|hinterlegte[ns]?\\s+)?${SECRET_DE}${RESET}`,
        'i',
      ),
    },
    // Anyone's secrets or bank data asked for on behalf of someone else.
    {
      kind: 'disclosure',
      re: new RegExp(
        `\\b${ASK_EN}\\b${S}{0,60}\\b(${SECRET_EN}|${BANK_EN}|personal (data|details|information)|e-?mails?|messages?)\\b${S}{0,40}\\b(of|for|from|about|belonging to|on file for)\\s+${THIRD_EN}`,
        'i',
      ),
    },
    {
      kind: 'disclosure',
      re: new RegExp(
        `\\b${ASK_EN}\\b${S}{0,40}\\b${THIRD_EN}('s|s')\\s+(\\w+\\s+)?(${SECRET_EN}|${BANK_EN}|personal (data|details|information))`,
        'i',
      ),
    },
    {
      kind: 'disclosure',
      re: new RegExp(
        `\\b${ASK_DE}\\b${S}{0,60}\\b(${SECRET_DE}|${BANK_DE}|persönlichen daten|adresse|e-?mails|nachrichten)\\s+(von|des|der|für|zu)\\s+${THIRD_DE}`,
        'i',
      ),
    },
    // Recipient: the reply is to go somewhere else.
    {
      kind: 'recipient',
      // A copied header line ("Reply-To: x@y") is no request.
      re: new RegExp(
        `\\b(reply|respond|send (the|your) (reply|answer|response))\\b(?!-to\\s*:)${S}{0,30}\\bto\\b${S}{0,20}${ADDRESS}`,
        'i',
      ),
    },
    {
      kind: 'recipient',
      re: new RegExp(
        `\\b(reply|respond|send (the|your) (reply|answer|response))\\s+(only\\s+)?(instead|rather)\\s+to\\b|\\b(reply|respond)\\s+to\\b${S}{0,30}\\binstead\\b`,
        'i',
      ),
    },
    {
      kind: 'recipient',
      re: new RegExp(
        `\\b(antworte|antworten sie|sende die antwort|schicke die antwort|senden sie die antwort|schicken sie die antwort)\\b${S}{0,30}\\ban\\b${S}{0,20}${ADDRESS}`,
        'i',
      ),
    },
    {
      kind: 'recipient',
      re: /\b(antworte|antworten sie|antwortet|sende|senden sie|schicke|schicken sie)\b[^.?!\n]{0,20}\b(stattdessen|lieber|nur noch|ausschließlich)\s+an\b/i,
    },
    // "cc x@y" as a request; a copied header line ("Cc: x@y") has its colon and is not one.
    { kind: 'recipient', re: new RegExp(`\\b(bcc|cc)\\s+${ADDRESS}`, 'i') },
    { kind: 'recipient', re: new RegExp(`\\b(add|put|include|setze|nimm|füge)\\b${S}{0,20}${ADDRESS}${S}{0,20}\\b(bcc|cc)\\b`, 'i') },
    ...STRUCTURAL_PATTERNS,
  ] satisfies Pattern[]
).map((p) => ({ ...p, re: new RegExp(p.re.source, `${p.re.flags}g`) }));

/** The sentence around a match (for `needs`): from the last stop before it to the next after it. */
function sentenceAt(text: string, index: number, length: number): string {
  const start = Math.max(text.lastIndexOf('\n', index), text.lastIndexOf('. ', index)) + 1;
  const stops = [text.indexOf('\n', index + length), text.indexOf('. ', index + length)].filter((i) => i >= 0);
  return text.slice(start, stops.length ? Math.min(...stops) + 1 : text.length);
}

/** Checks each named part (subject, body, quoted history, attachment names, hidden HTML, …). */
export function detectInjection(parts: InjectionInput): InjectionFinding[] {
  const findings: InjectionFinding[] = [];
  for (const [key, raw] of Object.entries(parts)) {
    if (!raw) continue;
    const where = key === 'hiddenHtml' ? 'hidden_html' : key;
    const hidden = obfuscation(raw);
    if (hidden !== undefined) findings.push({ kind: 'obfuscation', where, excerpt: hidden });
    const text = normaliseForGuard(raw);
    for (const { kind, re, unless, needs } of PATTERNS) {
      if (findings.some((f) => f.kind === kind && f.where === where)) continue;
      // The first match may be the customer's own words; a later one in the same part still counts.
      for (const m of text.matchAll(re)) {
        if (unless?.test(m[0])) continue;
        if (needs && !needs.test(sentenceAt(text, m.index, m[0].length))) continue;
        findings.push({ kind, where, excerpt: m[0].slice(0, 160) });
        break;
      }
    }
  }
  return findings;
}

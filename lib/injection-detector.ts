/**
 * Flags mail that tries to steer the assistant: instructions to ignore its rules, to forward or
 * exfiltrate mail, to reveal other customers' data or its own prompt, or to change recipients.
 * A heuristic, German and English: it marks drafts for the reviewer, it does not block anything.
 */
export interface InjectionFinding {
  kind: 'override' | 'exfiltration' | 'disclosure' | 'recipient';
  where: string;
  excerpt: string;
}

const PATTERNS: Array<{ kind: InjectionFinding['kind']; re: RegExp }> = [
  {
    kind: 'override',
    re: /\b(ignore|disregard|forget|override)\b[^.\n]{0,40}\b(previous|prior|above|all|your|system)\b[^.\n]{0,30}\b(instructions?|rules?|prompts?|guidelines)/i,
  },
  {
    kind: 'override',
    re: /\b(ignoriere|vergiss|missachte|übergehe)\b[^.\n]{0,40}\b(alle|vorherigen?|bisherigen?|deine|obigen?)\b[^.\n]{0,30}\b(anweisungen|regeln|instruktionen|vorgaben)/i,
  },
  { kind: 'override', re: /\b(you are now|act as|new instructions?|system prompt:|du bist jetzt|neue anweisung(en)?)\b/i },
  {
    kind: 'exfiltration',
    re: /\b(forward|send|bcc|cc|copy)\b[^.\n]{0,40}\b(all|every|other|previous|these)\b[^.\n]{0,30}\b(e-?mails?|messages?|conversations?|threads?)\b/i,
  },
  {
    kind: 'exfiltration',
    re: /\b(leite|sende|schicke|kopiere)\b[^.\n]{0,40}\b(alle|sämtliche|andere[n]?|bisherigen?)\b[^.\n]{0,30}\b(e-?mails?|nachrichten|mails|konversationen)\b/i,
  },
  {
    kind: 'disclosure',
    re: /\b(reveal|show|list|tell me|print)\b[^.\n]{0,40}\b(other customers?|other clients?|all customers?|your (system )?prompt|internal (notes|data))/i,
  },
  {
    kind: 'disclosure',
    re: /\b(zeige|nenne|verrate|gib)\b[^.\n]{0,40}\b(andere[rn]? kunden|alle kunden|deinen? (system-?)?prompt|interne[n]? (daten|notizen))/i,
  },
  { kind: 'recipient', re: /\b(reply|respond|send (the|your) (reply|answer))\b[^.\n]{0,30}\bto\b[^.\n]{0,20}[\w.+-]+@[\w-]+\.[\w.-]+/i },
  { kind: 'recipient', re: /\b(antworte|sende die antwort|schicke die antwort)\b[^.\n]{0,30}\ban\b[^.\n]{0,20}[\w.+-]+@[\w-]+\.[\w.-]+/i },
];

/** Checks each named part (subject, body, quoted history, attachment names, …). */
export function detectInjection(parts: Record<string, string>): InjectionFinding[] {
  const findings: InjectionFinding[] = [];
  for (const [where, text] of Object.entries(parts)) {
    for (const { kind, re } of PATTERNS) {
      const m = re.exec(text);
      if (m && !findings.some((f) => f.kind === kind && f.where === where)) {
        findings.push({ kind, where, excerpt: m[0].slice(0, 160) });
      }
    }
  }
  return findings;
}

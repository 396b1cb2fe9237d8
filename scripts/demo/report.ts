import { DECISIONS } from '../../src/email/email.contract';
import { DRAFT_FLAGS } from '../../src/drafting/drafting.contract';
import { OPERATOR_VIEWS, workflowListUrl } from '../../src/operations/operator-views';
import type { ReceivedReply } from './pipeline';
import type { EmailRow } from './queries';
import { shellQuote } from './cli';
import { PRINTED_CODEC_AUTH } from './codec';

/** Left-aligned columns; cells longer than their column's limit end in an ellipsis. */
export function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>, limits: readonly number[]): string {
  const cut = (s: string, max: number): string => {
    const chars = [...s.replace(/\s+/g, ' ').trim()];
    return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`;
  };
  const cells = [headers, ...rows].map((row) => row.map((c, i) => cut(c, limits[i] ?? 60)));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => [...(r[i] ?? '')].length)));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => c + ' '.repeat(Math.max(0, (widths[i] ?? 0) - [...c].length)))
      .join('  ')
      .trimEnd();
  const [head, ...body] = cells;
  return [line(head ?? []), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

export function draftTable(rows: readonly EmailRow[]): string {
  return table(
    ['workflow id', 'from', 'subject', 'status', 'category', 'flags', 'draft (first line)'],
    rows.map((r) => [
      r.id,
      r.fromName || r.fromAddress || '?',
      r.subject ?? '',
      r.status,
      r.draftCategory ?? '-',
      r.draftFlags.join(', ') || '-',
      firstLine(r.draftBody ?? '(no draft)'),
    ]),
    [80, 22, 44, 17, 18, 40, 40],
  );
}

/**
 * How many drafts carry each flag, as the reviewer meets them: a flag on every draft is no flag,
 * and this line shows it at once ("possible_prompt_injection on 1 of 8 drafts").
 */
export function flagCounts(rows: readonly EmailRow[]): string {
  const drafted = rows.filter((r) => r.draftBody !== null);
  const counts = new Map<string, number>();
  for (const r of drafted) for (const f of new Set(r.draftFlags)) counts.set(f, (counts.get(f) ?? 0) + 1);
  if (counts.size === 0) return `flags: none on ${drafted.length} drafts`;
  return `flags: ${[...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([f, n]) => `${f} on ${n} of ${drafted.length} drafts`)
    .join('; ')}`;
}

const OTHER_LANGUAGE: Record<string, string> = { de: 'English', en: 'German' };

/** "subject: id (in German)" for every draft that cites a source in the other language than its own. */
export function crossLanguageCitations(rows: readonly EmailRow[]): string[] {
  return rows
    .filter((r) => r.draftFlags.includes(DRAFT_FLAGS.crossLanguageSource) && r.draftCitedIds.length > 0)
    .map(
      (r) =>
        `"${r.subject ?? ''}" cites ${r.draftCitedIds.join(', ')} (in ${OTHER_LANGUAGE[r.draftLanguage ?? ''] ?? 'the other language'})`,
    );
}

/**
 * Each draft's opening lines after the greeting and the sources its sentences cite (kept beside
 * the text, never in it; without claims, the context it was given), so a viewer sees that every
 * mail got its own answer.
 */
export function draftPreviews(rows: readonly EmailRow[]): string {
  return rows
    .map((r) => {
      const body = r.draftBody ?? '';
      const lines = body
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '')
        .slice(1, 4)
        .map((l) => ([...l].length > 110 ? `${[...l].slice(0, 109).join('')}…` : l));
      const sources =
        r.draftCitedIds.length > 0
          ? `cites ${r.draftCitedIds.join(', ')}`
          : r.draftContextIds.length > 0
            ? `context ${r.draftContextIds.join(', ')}`
            : 'no sources';
      return [`${r.subject ?? '(no subject)'}  [${sources}]`, ...(lines.length > 0 ? lines : ['(no draft)']).map((l) => `  | ${l}`)].join(
        '\n',
      );
    })
    .join('\n\n');
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim() !== '') ?? '';
}

export function indent(text: string, prefix = '  '): string {
  return text
    .split('\n')
    .map((l) => `${prefix}${l}`.trimEnd())
    .join('\n');
}

export function formatReply(r: ReceivedReply & { filedIn?: string }): string {
  return [
    'the SMTP sink received:',
    `  envelope:     from ${r.mailFrom} to ${r.rcptTo.join(', ')}`,
    `  From:         ${r.from}`,
    `  Subject:      ${r.subject}`,
    `  In-Reply-To:  ${r.inReplyTo ?? '(none)'}`,
    `  Message-ID:   ${r.messageId ?? '(none)'}`,
    `  stored as:    ${r.file ?? '(file not found)'}`,
    ...(r.filedIn ? [`  a copy was filed in ${r.filedIn}`] : []),
    indent(r.text.trimEnd(), '  | '),
  ].join('\n');
}

export interface DemoEndpoints {
  env: Record<string, string>;
  uiUrl: string;
  temporalCli: string;
  temporalAddress: string;
  /** The codec server and the file with the payload key and token (relative to the project). */
  codec: { url: string; envFile: string };
  /** Emails still waiting for a person, with their status. */
  waiting: ReadonlyArray<{ id: string; status: string }>;
  keep: boolean;
  /** Shown under the export line, e.g. that a password was masked. */
  envNote?: string;
}

/** What to try next; only meaningful while the stack runs, which --keep allows. */
export function hints(e: DemoEndpoints): string {
  const first = e.waiting[0];
  const example = first?.id ?? '<workflow-id>';
  // manual_review means there is no usable draft: approving needs the reply a person wrote.
  const approve =
    first?.status === 'manual_review'
      ? `  npx email-rag approve ${example} --body-file reply.txt --by you   (manual_review: write the reply into reply.txt first)`
      : `  npx email-rag approve ${example} --by you`;
  const exportLine = `export ${Object.entries(e.env)
    .map(([k, v]) => shellQuote([`${k}=${v}`]))
    .join(' ')}`;
  // The token stays in the shell (from the env file): `$CODEC_TOKEN` is expanded there, not here.
  const codec = `${shellQuote(['--codec-endpoint', e.codec.url, '--codec-auth'])} ${PRINTED_CODEC_AUTH}`;
  const temporalCli = (command: string[], args: string[], withCodec = false) =>
    `${shellQuote([e.temporalCli, 'workflow', ...command, '--address', e.temporalAddress, '--namespace', 'default', ...args])}${withCodec ? ` ${codec}` : ''}`;
  const reject = temporalCli(
    ['update', 'execute'],
    [
      '--workflow-id',
      example,
      '--name',
      DECISIONS.reject,
      '--input',
      JSON.stringify({ draftId: `${example}:draft:1`, by: 'you', reason: 'not needed' }),
    ],
    true,
  );
  const waitingQuery = OPERATOR_VIEWS[0]!.query;
  const nameWidth = Math.max(...OPERATOR_VIEWS.map((v) => v.name.length));
  return [
    `Temporal Web UI: ${workflowListUrl(e.uiUrl, 'default')}`,
    '  views to save there ("Save as View"; the Web UI keeps them per browser), each a link that filters the list:',
    ...OPERATOR_VIEWS.map((v) => `  ${v.name.padEnd(nameWidth)}  ${workflowListUrl(e.uiUrl, 'default', v.query)}`),
    `  payloads (inputs, results, summaries, failures) are encrypted; the Web UI decodes them through the codec server ${e.codec.url}`,
    e.keep
      ? 'The stack keeps running. In another shell, from the project directory:'
      : 'The stack stops now; `npm run demo -- --keep` leaves it running so you can try, from the project directory:',
    `  ${exportLine}`,
    ...(e.envNote ? [`  (${e.envNote})`] : []),
    `  . ${e.codec.envFile}   (this run's PAYLOAD_KEYS and CODEC_TOKEN: without them nothing decodes)`,
    'Find emails with the temporal CLI (search attributes EmailStatus, EmailPriority, NeedsHuman, …):',
    `  ${temporalCli(['list'], ['--query', waitingQuery])}`,
    `  ${temporalCli(['count'], ['--query', 'NeedsHuman=true AND EmailStatus="awaiting_approval"'])}`,
    `  ${temporalCli(['describe'], ['--workflow-id', example], true)}   (summary, details, current details)`,
    `  ${temporalCli(['show'], ['--workflow-id', example, '--detailed'], true)}   (the history with its payloads decoded; without the codec flags: ciphertext)`,
    'Decide with the email-rag CLI:',
    '  npx email-rag drafts',
    approve,
    `  npx email-rag reject ${example} --reason "not needed" --by you`,
    '  npx email-rag status',
    '  or with the temporal CLI (an Update that names the draft you read; see `email-rag drafts`):',
    `  ${reject}`,
    e.waiting.length > 0
      ? `Still waiting for a decision:\n${e.waiting.map((w) => `  ${w.id}  (${w.status})`).join('\n')}`
      : 'Nothing else waits for a decision.',
  ].join('\n');
}

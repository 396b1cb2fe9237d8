/**
 * `npm run bench -- --attachments`: how long the index step's attachment reader takes per MB of
 * PDF and DOCX, made here with pdfkit and docx (text pages, like invoices and letters). Each file
 * is read three times in the reader thread (after one warm-up read) and the median is reported,
 * once with the limits lifted (the extractor's own speed) and once with the shipped limits (what
 * a worker spends: a long PDF is cut at ATTACHMENT_MAX_PAGES, long text at ATTACHMENT_MAX_CHARS).
 */
import { createAttachmentReader } from '../../src/attachments/attachment-reader';
import { DEFAULT_ATTACHMENT_LIMITS, type AttachmentLimits } from '../../src/attachments/attachment-limits';
import { makeDocx, makePdf } from '../../test/support/attachment-files';

export interface AttachmentFigure {
  kind: 'pdf' | 'docx';
  limits: 'lifted' | 'shipped';
  units: number;
  bytes: number;
  medianMs: number;
  msPerMb: number;
  chars: number;
  /** Per million characters of text read: comparable across formats that compress text differently. */
  msPerMillionChars: number;
}

const LINE = 'Pos. 12  Wartung Heizungsanlage gemäß Vertrag 2026-114, Arbeitszeit 2,5 h à 78,00 EUR = 195,00 EUR netto';

async function median(read: () => Promise<number>): Promise<{ ms: number; chars: number }> {
  const times: number[] = [];
  let chars = 0;
  for (let i = 0; i < 3; i++) {
    const t = process.hrtime.bigint();
    chars = await read();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return { ms: times.sort((a, b) => a - b)[1]!, chars };
}

export async function runAttachmentBench(log: (line: string) => void): Promise<AttachmentFigure[]> {
  const lifted: AttachmentLimits = {
    ...DEFAULT_ATTACHMENT_LIMITS,
    maxPages: 100_000,
    maxChars: 100_000_000,
    maxBytes: 500 * 1024 * 1024,
    timeoutMs: 600_000,
    maxHeapMb: 1024,
  };
  const files: Array<{ kind: 'pdf' | 'docx'; units: number; content: Buffer }> = [];
  for (const pages of [10, 100, 400]) {
    files.push({
      kind: 'pdf',
      units: pages,
      content: await makePdf(
        Array.from({ length: pages }, (_, p) => Array.from({ length: 20 }, (_, l) => `${p + 1}.${l + 1} ${LINE}`).join('\n')),
      ),
    });
  }
  for (const paragraphs of [300, 3_000, 12_000]) {
    files.push({
      kind: 'docx',
      units: paragraphs,
      content: await makeDocx(Array.from({ length: paragraphs }, (_, i) => `${i + 1} ${LINE}`)),
    });
  }
  const figures: AttachmentFigure[] = [];
  for (const [name, limits] of [
    ['lifted', lifted],
    ['shipped', DEFAULT_ATTACHMENT_LIMITS],
  ] as const) {
    const reader = createAttachmentReader(limits);
    try {
      const type = (kind: 'pdf' | 'docx') =>
        kind === 'pdf' ? 'application/pdf' : 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
      const readOne = async (f: (typeof files)[number]) => {
        const o = await reader.read({
          filename: `bench.${f.kind}`,
          declaredType: type(f.kind),
          detectedType: type(f.kind),
          content: f.content,
        });
        if (o.state !== 'extracted') throw new Error(`bench file not read: ${o.reason}`);
        return o.pages.reduce((n, p) => n + p.text.length, 0);
      };
      await readOne(files[0]!);
      for (const f of files) {
        const { ms, chars } = await median(() => readOne(f));
        const mb = f.content.length / 1024 / 1024;
        const fig = {
          kind: f.kind,
          limits: name,
          units: f.units,
          bytes: f.content.length,
          medianMs: Math.round(ms),
          msPerMb: Math.round(ms / mb),
          chars,
          msPerMillionChars: Math.round((ms / chars) * 1e6),
        };
        figures.push(fig);
        log(
          `attachments (${name} limits): ${f.kind} ${f.units} ${f.kind === 'pdf' ? 'pages' : 'paragraphs'}, ${mb.toFixed(2)} MB: ` +
            `${fig.medianMs} ms (${fig.msPerMb} ms/MB of file), ${chars} characters (${fig.msPerMillionChars} ms per million)`,
        );
      }
    } finally {
      await reader.close();
    }
  }
  return figures;
}

import { MultiBar, Presets, type SingleBar } from 'cli-progress';

/**
 * How far an import is. On a terminal a bar on stderr (bytes of the mbox files read, or files of a
 * Maildir/.eml folder); otherwise a line on stderr every `every` messages, so a log or a pipe gets
 * a heartbeat, not a redrawn bar.
 */
export interface IngestProgress {
  /** `bytes` read and `files` finished since the last call; `messages` handled so far. */
  advance(step: { bytes?: number; files?: number; messages?: number }): void;
  /** A line that must not be drawn over by the bar. */
  log(line: string): void;
  stop(): void;
}

const mb = (n: number) => `${(n / 1_048_576).toFixed(1)} MB`;

export function createIngestProgress(opts: {
  tty: boolean;
  unit: 'bytes' | 'files';
  total: number;
  every: number;
  write(line: string): void;
}): IngestProgress {
  let bytes = 0;
  let files = 0;
  let messages = 0;
  let lastLogged = 0;
  const done = () => (opts.unit === 'bytes' ? bytes : files);
  if (!opts.tty) {
    return {
      advance(step) {
        bytes += step.bytes ?? 0;
        files += step.files ?? 0;
        messages = step.messages ?? messages;
        if (messages - lastLogged < opts.every) return;
        lastLogged = messages;
        const of = opts.unit === 'bytes' ? `${mb(bytes)} of ${mb(opts.total)}` : `${files} of ${opts.total} files`;
        opts.write(`email-rag ingest: ${messages} message(s) read, ${of}`);
      },
      log: (line) => opts.write(line),
      stop() {},
    };
  }
  const multi = new MultiBar(
    {
      format:
        opts.unit === 'bytes'
          ? ' {bar} {percentage}% | {doneMb} of {totalMb} | {messages} messages | {eta_formatted} left'
          : ' {bar} {percentage}% | {value} of {total} files | {messages} messages | {eta_formatted} left',
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      etaBuffer: 200,
    },
    Presets.shades_classic,
  );
  const bar: SingleBar = multi.create(Math.max(1, opts.total), 0, { messages: 0, doneMb: mb(0), totalMb: mb(opts.total) });
  return {
    advance(step) {
      bytes += step.bytes ?? 0;
      files += step.files ?? 0;
      messages = step.messages ?? messages;
      bar.update(done(), { messages, doneMb: mb(bytes), totalMb: mb(opts.total) });
    },
    log: (line) => multi.log(`${line}\n`),
    stop: () => multi.stop(),
  };
}

import { EventEmitter } from 'node:events';
import { SMTPServer } from 'smtp-server';
import type { SMTPServerDataStream, SMTPServerError, SMTPServerSession } from 'smtp-server';
import { freePort } from './ports';

/** How the listener answers one DATA command once it has read the message to the final dot. */
export type DataAnswer =
  | { kind: 'accept' }
  | { kind: 'refuse'; code: number; message: string }
  /** Keeps the message and never answers: the client is left in the hand-over (in doubt). */
  | { kind: 'hold' };

export interface DataEvent {
  rcptTo: string[];
  /** The Message-ID header of the message ('' when it has none, or at 'data-start'). */
  messageId: string;
}

export interface SwitchableSmtp {
  host: string;
  port: number;
  /** Copies the server took over (final dot read, accepted or held), per Message-ID. */
  copies: Map<string, number>;
  /** Total copies taken over. */
  received(): number;
  /**
   * Decides the answer for each message; the first rule that returns an answer wins, a rule that
   * returns `'done'` is removed. Without a matching rule the message is accepted.
   */
  addRule(rule: (mail: DataEvent) => DataAnswer | 'done' | undefined): void;
  /** Milliseconds between the final dot and the answer: the window in which a sender can die. */
  setLatency(ms: number): void;
  /**
   * 'data-start' when a DATA command begins (nothing handed over yet), 'data-end' when the final
   * dot has been read and the answer is about to be given (the hand-over window).
   */
  events: EventEmitter<{ 'data-start': [DataEvent]; 'data-end': [DataEvent, DataAnswer] }>;
  /** Answers every held message with 451 (their clients are usually gone by then). */
  releaseHeld(): void;
  stop(): Promise<void>;
}

/**
 * A receiving SMTP server whose answers can be switched while it runs: accept, refuse with a
 * given code, or hold a message after its final dot. Unlike a plain sink it tells the caller the
 * moments a send is in flight, so a sender can be killed exactly there.
 */
export async function startSwitchableSmtp(
  opts: {
    port?: number;
    /**
     * Files every message the server takes over before it answers (or holds it), as Microsoft 365
     * and Gmail keep submitted mail in the sender's Sent folder: a kill after the final dot finds
     * the copy already filed.
     */
    fileAccepted?: (raw: Buffer) => Promise<void>;
  } = {},
): Promise<SwitchableSmtp> {
  const port = opts.port ?? (await freePort());
  const copies = new Map<string, number>();
  const rules: Array<(mail: DataEvent) => DataAnswer | 'done' | undefined> = [];
  const held = new Set<(err?: Error) => void>();
  const events = new EventEmitter<{ 'data-start': [DataEvent]; 'data-end': [DataEvent, DataAnswer] }>();
  let latencyMs = 0;

  const decide = (mail: DataEvent): DataAnswer => {
    for (let i = 0; i < rules.length; i++) {
      const answer = rules[i]!(mail);
      if (answer === 'done') {
        rules.splice(i, 1);
        i -= 1;
      } else if (answer) return answer;
    }
    return { kind: 'accept' };
  };

  const onData = (stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null) => void): void => {
    const rcptTo = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
    const chunks: Buffer[] = [];
    // DATA was accepted, no byte of the message is read yet: nothing has been handed over.
    events.emit('data-start', { rcptTo, messageId: '' });
    stream.on('data', (chunk: Buffer) => void chunks.push(chunk));
    stream.once('error', (err) => callback(err));
    stream.once('end', () => void finish());
    const finish = async () => {
      const raw = Buffer.concat(chunks);
      const mail = { rcptTo, messageId: messageIdOf(raw.toString('latin1')) };
      const answer = decide(mail);
      if (answer.kind !== 'refuse' && opts.fileAccepted) {
        try {
          await opts.fileAccepted(raw);
        } catch (err) {
          // Not filed, not taken over: a 451 the sender retries.
          callback(Object.assign(new Error(`could not file the message: ${String(err)}`), { responseCode: 451 }));
          return;
        }
      }
      if (answer.kind !== 'refuse') copies.set(mail.messageId, (copies.get(mail.messageId) ?? 0) + 1);
      events.emit('data-end', mail, answer);
      if (answer.kind === 'hold') {
        const release = (err?: Error) => {
          held.delete(release);
          callback(err);
        };
        held.add(release);
        return;
      }
      setTimeout(() => {
        if (answer.kind === 'accept') return callback();
        const err: SMTPServerError = new Error(answer.message);
        err.responseCode = answer.code;
        callback(err);
      }, latencyMs);
    };
  };

  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 1_000,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? 'anonymous' });
    },
    onData,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  // A client killed in the middle of a session resets its connection: not our failure.
  server.on('error', () => undefined);

  const releaseHeld = (): void => {
    for (const release of [...held]) {
      const err: SMTPServerError = new Error('held message released');
      err.responseCode = 451;
      release(err);
    }
  };
  return {
    host: '127.0.0.1',
    port,
    copies,
    received: () => [...copies.values()].reduce((a, b) => a + b, 0),
    addRule: (rule) => void rules.push(rule),
    setLatency: (ms) => void (latencyMs = ms),
    events,
    releaseHeld,
    stop() {
      releaseHeld();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function messageIdOf(text: string): string {
  const headers = text.split(/\r?\n\r?\n/)[0] ?? '';
  return /^message-id:[ \t]*(<[^>\r\n]*>)/im.exec(headers)?.[1] ?? '';
}

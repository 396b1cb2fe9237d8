import type { Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import { withImap, type ImapLogin } from './imap-session';

/**
 * What the server does once it has read a message to its final dot:
 * - `accept`: files it in the Sent folder, then answers 250 (Microsoft 365 and Gmail keep every
 *   submitted message in the sender's Sent folder themselves);
 * - `fileThenCut`: files it, then drops the connection before the 250 (the sender is in doubt);
 * - `fileThenSilent`: files it and never answers (the sender's timeout puts it in doubt);
 * - `cutWithoutFiling`: drops the connection before filing or answering (in doubt, nowhere in Sent).
 */
export type FilingMode = 'accept' | 'fileThenCut' | 'fileThenSilent' | 'cutWithoutFiling';

export interface FilingSmtp {
  host: string;
  port: number;
  /** Messages whose final dot arrived, per Message-ID: the deliveries the provider would make. */
  deliveries: Map<string, number>;
  /** Connections opened so far (a send that opens none sent nothing). */
  connections(): number;
  /** Modes for the next messages, in order; after them, `accept`. */
  plan(...modes: FilingMode[]): void;
  stop(): Promise<void>;
}

/**
 * A submission server that files what it accepts in the sender's Sent folder over IMAP (a real
 * Dovecot account), as the providers do, and can break the hand-over after filing. Loopback, no TLS.
 */
export async function startFilingSmtp(sentOf: { login: ImapLogin; folder: string }): Promise<FilingSmtp> {
  const deliveries = new Map<string, number>();
  const queue: FilingMode[] = [];
  const sockets = new Map<number, Socket>();
  const silent = new Set<() => void>();
  let connections = 0;

  const file = (raw: Buffer) =>
    withImap(sentOf.login, async (c) => {
      await c.append(sentOf.folder, raw, ['\\Seen']);
    });

  const onData = (stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null) => void): void => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => void chunks.push(chunk));
    stream.once('error', (err) => callback(err));
    stream.once('end', () => {
      const raw = Buffer.concat(chunks);
      const mode = queue.shift() ?? 'accept';
      const messageId = messageIdOf(raw.toString('latin1'));
      deliveries.set(messageId, (deliveries.get(messageId) ?? 0) + 1);
      const cut = () => sockets.get(session.remotePort)?.destroy();
      if (mode === 'cutWithoutFiling') return cut();
      file(raw).then(
        () => {
          if (mode === 'accept') callback();
          else if (mode === 'fileThenCut') cut();
          else silent.add(() => callback(new Error('closing')));
        },
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
    });
  };

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    closeTimeout: 1_000,
    onData,
  });
  server.server.on('connection', (socket: Socket) => {
    connections += 1;
    const port = socket.remotePort ?? 0;
    sockets.set(port, socket);
    socket.on('close', () => sockets.delete(port));
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  return {
    host: '127.0.0.1',
    port: typeof address === 'object' && address ? address.port : 0,
    deliveries,
    connections: () => connections,
    plan: (...modes) => void queue.push(...modes),
    stop() {
      for (const release of silent) release();
      for (const socket of sockets.values()) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function messageIdOf(text: string): string {
  const headers = text.split(/\r?\n\r?\n/)[0] ?? '';
  return /^message-id:[ \t]*(<[^>\r\n]*>)/im.exec(headers)?.[1] ?? '';
}

import { commandWords, defaultEmbedderCommand, startLocalEmbedder, type LocalEmbedderService } from './embedder.local';
import { createOpenAiEmbedder } from './embedder.openai';
import type { Config } from '../platform/config';
import { createLogger } from '../platform/logger';
import type { Embedder } from './embedder.port';

export interface RunningEmbedder {
  /** Undefined with EMBEDDER=off: no vectors, retrieval by words only. */
  embedder: Embedder | undefined;
  /** One line for logs and the CLI: mode, model and where it answers. */
  description: string;
  /** The local service, when this process runs one. */
  service?: LocalEmbedderService;
  /** Stops the local service (nothing to do otherwise). */
  stop(): Promise<void>;
}

const logger = createLogger('embedder');

/** The embedder of EMBEDDER=remote, built without starting anything; undefined in the other modes. */
export function remoteEmbedder(config: Pick<Config, 'embedder' | 'embeddingBaseUrl'>): Embedder | undefined {
  const { embedder: settings, embeddingBaseUrl } = config;
  if (settings.mode !== 'remote' || !embeddingBaseUrl) return undefined;
  return createOpenAiEmbedder({
    baseUrl: embeddingBaseUrl,
    apiKey: settings.apiKey,
    model: settings.model,
    timeoutMs: settings.timeoutMs,
    inputType: settings.inputType,
  });
}

/**
 * The embedder the configuration asks for. EMBEDDER=local starts the local service first (and
 * throws a ConfigError saying what to do when it is not installed); `stop` ends it again.
 */
export async function buildEmbedder(config: Pick<Config, 'embedder' | 'embeddingBaseUrl'>): Promise<RunningEmbedder> {
  const settings = config.embedder;
  if (settings.mode === 'off') return { embedder: undefined, description: 'off (retrieval by words only)', stop: async () => undefined };
  if (settings.mode === 'remote') {
    return {
      embedder: remoteEmbedder(config),
      description: `remote ${settings.model} at ${config.embeddingBaseUrl} (input type ${settings.inputType})`,
      stop: async () => undefined,
    };
  }
  const service = await startLocalEmbedder({
    command: settings.command ? commandWords(settings.command) : defaultEmbedderCommand(),
    threads: settings.threads,
    onEvent: (event, fields) => logger.warn(event, fields),
  });
  // The service may come back on another port after a restart: the client follows it.
  const clients = new Map<string, Embedder>();
  const current = (): Embedder => {
    const baseUrl = service.baseUrl;
    let client = clients.get(baseUrl);
    if (!client) {
      clients.clear();
      client = createOpenAiEmbedder({
        baseUrl,
        apiKey: 'not-needed',
        model: settings.model,
        timeoutMs: settings.timeoutMs,
        inputType: settings.inputType,
      });
      clients.set(baseUrl, client);
    }
    return client;
  };
  logger.info('embedder ready', { model: settings.model, url: service.baseUrl, pid: service.pid, threads: settings.threads });
  return {
    embedder: { model: settings.model, embed: (texts, kind) => current().embed(texts, kind) },
    description: `local ${settings.model} at ${service.baseUrl} (${settings.threads} thread${settings.threads === 1 ? '' : 's'})`,
    service,
    stop: () => service.stop(),
  };
}

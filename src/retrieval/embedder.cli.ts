import type { Config } from '../platform/config';
import { errorMessage } from '../platform/errors';
import { buildEmbedder } from './embedder';
import { CliError } from '../platform/cli-context';
import { JSON_OPTION, type CliCommand } from '../platform/cli-command';

export interface EmbedderCheck {
  mode: Config['embedder']['mode'];
  model: string;
  inputType: Config['embedder']['inputType'];
  /** Where it answered (for local: the service started for this check). */
  description: string;
  ok: boolean;
  dimensions?: number;
  /** One query and one passage, embedded one after the other. */
  ms?: number;
  error?: string;
}

/**
 * `email-rag embedder`: does the configured embedder answer? Starts the local service when
 * EMBEDDER=local (and stops it again), embeds one query and one passage.
 */
export async function checkEmbedder(config: Config): Promise<EmbedderCheck> {
  const { mode, model, inputType } = config.embedder;
  const running = await buildEmbedder(config);
  try {
    if (!running.embedder) return { mode, model, inputType, description: running.description, ok: true };
    const t0 = performance.now();
    const [query] = await running.embedder.embed(['Wie bekomme ich mein Geld zurück?'], 'query');
    await running.embedder.embed(['Erstattungen dauern fünf Werktage.'], 'passage');
    const ms = Math.round(performance.now() - t0);
    return { mode, model, inputType, description: running.description, ok: true, dimensions: query?.length, ms };
  } catch (err) {
    return { mode, model, inputType, description: running.description, ok: false, error: errorMessage(err) };
  } finally {
    await running.stop();
  }
}

export function formatEmbedderCheck(c: EmbedderCheck): string {
  if (!c.ok) throw new CliError(`embedder ${c.description} does not answer: ${c.error ?? 'unknown error'}`, 1);
  if (c.mode === 'off') return 'embedder: off (EMBEDDER=off): no vectors, retrieval by words only';
  return `embedder: ${c.description}: answers, ${c.dimensions ?? '?'} dimensions, a query and a passage in ${c.ms ?? '?'} ms`;
}

export const embedderCommand: CliCommand<EmbedderCheck> = {
  name: 'embedder',
  usage: `embedder [--json]                       does the embedder (EMBEDDER) answer: mode, model, where, dimensions;
                                        exit 1 if it does not`,
  options: JSON_OPTION,
  run: (ctx) => checkEmbedder(ctx.config()),
  // Without --json a failed check is an error line (formatEmbedderCheck throws); with it, the JSON and exit 1.
  format: formatEmbedderCheck,
  exitCode: (c) => (c.ok ? undefined : 1),
};

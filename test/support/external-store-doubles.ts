/**
 * The HTTP TEST DOUBLES of Qdrant, ArangoDB and an OpenAI-style embeddings API (no such servers
 * run here), started together, with the environment that points the product at them.
 */
import { startArangoDouble, type ArangoDouble } from '../doubles/arango-double';
import { startEmbeddingsDouble, type EmbeddingsDouble } from '../doubles/embeddings-double';
import { startQdrantDouble, type QdrantDouble } from '../doubles/qdrant-double';

export const ARANGO_DOUBLE_PASSWORD = 'pw';
/** The embeddings double's model: a bag of words hashed into 64 dimensions. */
export const EMBEDDINGS_DOUBLE_MODEL = 'bag-of-words-64';

export interface ExternalStoreDoubles {
  qdrant: QdrantDouble;
  arango: ArangoDouble;
  embeddings: EmbeddingsDouble;
  /** QDRANT_URL, ARANGO_URL, ARANGO_PASSWORD, EMBEDDING_BASE_URL, EMBEDDING_MODEL. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startExternalStoreDoubles(): Promise<ExternalStoreDoubles> {
  const qdrant = await startQdrantDouble();
  const arango = await startArangoDouble({ username: 'root', password: ARANGO_DOUBLE_PASSWORD });
  const embeddings = await startEmbeddingsDouble({ dims: 64 });
  return {
    qdrant,
    arango,
    embeddings,
    env: {
      QDRANT_URL: qdrant.url,
      ARANGO_URL: arango.url,
      ARANGO_PASSWORD: ARANGO_DOUBLE_PASSWORD,
      EMBEDDING_BASE_URL: embeddings.baseUrl,
      EMBEDDING_MODEL: EMBEDDINGS_DOUBLE_MODEL,
    },
    stop: async () => {
      await Promise.all([qdrant.stop(), arango.stop(), embeddings.stop()]);
    },
  };
}

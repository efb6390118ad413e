/**
 * The EmbeddingModel port (AI SDK shape). The model id is stored with every vector, so changing
 * the model means re-embedding, never a schema migration.
 */
export interface EmbedOptions {
  texts: string[];
  signal?: AbortSignal;
}

export interface EmbedResult {
  vectors: Float32Array[];
  usage?: { tokens: number };
}

export interface EmbeddingModel {
  readonly provider: string;
  readonly modelId: string;
  readonly dimensions: number;
  /** Most texts one `embed` call accepts; callers batch above it. */
  readonly maxBatchSize: number;
  embed(options: EmbedOptions): Promise<EmbedResult>;
  /** Loads what the first `embed` would (the local embedder's lexicon), so that call is not slow. */
  warmUp?(): Promise<void>;
}

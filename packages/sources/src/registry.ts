import { httpSource } from './http';
import { localFileSource } from './localfile';
import { postgresSource } from './postgres';
import { s3Source } from './s3';
import { pacedSource, ReadPace } from './pace';
import { localFileSink, postgresSink, s3Sink, type RowSink } from './sinks';
import { SourceError, type Source, type SourceContext, type SourceFactory, type SourceInfo } from './types';

/**
 * The readers of each data-source type (API.md §5). A type without a factory here answers
 * SourceError('invalid', 'data source type [x] is not available').
 */
export const sourceFactories: Partial<Record<string, SourceFactory>> = {
  localfile: localFileSource,
  s3: s3Source,
  redshift: postgresSource,
  http: httpSource,
};

/** Every type a DSInfo may name (streams' `kafka` and `nats` are read by the streams service). */
export const SOURCE_TYPES = ['localfile', 's3', 'redshift', 'http'] as const;

/**
 * Stream types a data source may also be registered as (/dss/create): read by the streams
 * service only (POST /{user}/streams/poll?sid=), never by learnds, samples or previews here.
 */
export const STREAM_SOURCE_TYPES = ['kafka', 'nats'] as const;

/** The source of a registered (or previewed) DSInfo. Throws SourceError for an unknown type or bad info. */
export function sourceOf(type: string, info: SourceInfo, ctx: SourceContext): Source {
  const factory = Object.hasOwn(sourceFactories, type) ? sourceFactories[type] : undefined;
  if (!factory) throw new SourceError('invalid', `data source type [${String(type).slice(0, 100)}] is not available`);
  if (!ctx.limits) return factory(info, ctx);
  // The source reads with the pace's signal: a bound passed aborts it as a cancel would.
  const pace = new ReadPace(ctx.limits, ctx.signal);
  return pacedSource(factory(info, { ...ctx, signal: pace.signal }), pace);
}

export type { RowSink, SinkReport } from './sinks';

/** The data-source types a prediction can be written to (sinks.ts). */
export const SINK_TYPES = ['localfile', 's3', 'redshift'] as const;

/** The writer of a registered DSInfo; SourceError('invalid') for a type that cannot be written. */
export function sinkOf(type: string, info: SourceInfo, ctx: SourceContext): RowSink {
  if (type === 'localfile') return localFileSink(info, ctx);
  if (type === 's3') return s3Sink(info, ctx);
  if (type === 'redshift') return postgresSink(info, ctx);
  throw new SourceError('invalid', `a [${String(type).slice(0, 100)}] data source cannot be written (outputs: ${SINK_TYPES.join(', ')})`);
}

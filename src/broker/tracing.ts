// OpenTelemetry tracing of the broker, through `@opentelemetry/api` only: an optional peer
// dependency, loaded with a dynamic import on first use. Without it (or without an SDK
// registered by the application) everything here is a no-op; a consumer then makes no span at
// all (activeTracer), while a producer still carries an incoming trace context into its entries.
//
// Propagation: the Producer writes its span's context into the entry as W3C trace-context
// fields (`traceparent`, and `tracestate` when there is one) through the globally registered
// propagator; when none is registered (the api's default propagator writes nothing) it formats
// `traceparent` itself from the span context, so a trace is never lost for want of setup. The
// Worker reads them the same way (the registered propagator, else its own parser) and runs each
// job in a CONSUMER span that is a child of the producer's span and linked to it.
import type * as OtelApi from '@opentelemetry/api';

type Api = typeof OtelApi;
export type Span = OtelApi.Span;
export type Context = OtelApi.Context;

export const TRACEPARENT = 'traceparent';
export const TRACESTATE = 'tracestate';
const TRACER_NAME = 'sluice';

let loaded: Promise<Api | null> | null = null;
let api: Api | null = null;

/** Loads `@opentelemetry/api` once; null when it is not installed. */
export function loadTracing(): Promise<Api | null> {
  loaded ??= import('@opentelemetry/api').then(
    (m: unknown) => (api = m as Api),
    () => null,
  );
  return loaded;
}

/**
 * The tracer, or null while no SDK is registered. The api's global provider is a proxy whose
 * delegate the SDK sets; without one every span is a no-op, and making a consumer's cost about
 * a microsecond a job for nothing. Asked on every use: an SDK may be registered later.
 */
function activeTracer(otel: Api): OtelApi.Tracer | null {
  const provider = otel.trace.getTracerProvider();
  if (provider instanceof otel.ProxyTracerProvider) return provider.getDelegateTracer(TRACER_NAME) === undefined ? null : provider.getTracer(TRACER_NAME);
  return provider.getTracer(TRACER_NAME);
}

/** Messaging semantic-convention attributes of one operation on a stream. */
function messagingAttributes(stream: string, operation: 'send' | 'process'): OtelApi.Attributes {
  return {
    'messaging.system': 'redis',
    'messaging.destination.name': stream,
    'messaging.operation.type': operation,
    'messaging.operation.name': operation,
  };
}

/** The trace fields of the active context, with a producer span around the add. */
export class ProducerTrace {
  private constructor(
    private readonly otel: Api,
    readonly span: Span,
    private readonly fields: string[],
  ) {}

  /** A PRODUCER span `send STREAM` (null without the api). End it with end(). */
  static start(stream: string, count: number): ProducerTrace | null {
    const otel = api;
    if (otel === null) return null;
    const attributes = messagingAttributes(stream, 'send');
    if (count > 1) attributes['messaging.batch.message_count'] = count;
    const span = otel.trace.getTracer(TRACER_NAME).startSpan(`send ${stream}`, { kind: otel.SpanKind.PRODUCER, attributes });
    return new ProducerTrace(otel, span, injectFields(otel, otel.trace.setSpan(otel.context.active(), span)));
  }

  /** The fields appended to each entry (`traceparent`, maybe `tracestate`). */
  entryFields(): string[] {
    return this.fields;
  }

  end(ids: string[] | null, error?: unknown): void {
    if (ids !== null && ids.length === 1) this.span.setAttribute('messaging.message.id', ids[0]!);
    if (error !== undefined) recordFailure(this.otel, this.span, error);
    this.span.end();
  }
}

function injectFields(otel: Api, ctx: Context): string[] {
  const carrier: Record<string, string> = {};
  otel.propagation.inject(ctx, carrier);
  if (carrier[TRACEPARENT] === undefined) {
    const sc = otel.trace.getSpanContext(ctx);
    if (sc === undefined || !otel.isSpanContextValid(sc)) return [];
    carrier[TRACEPARENT] = `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
    const state = sc.traceState?.serialize();
    if (state) carrier[TRACESTATE] = state;
  }
  const out = [TRACEPARENT, carrier[TRACEPARENT]!];
  if (carrier[TRACESTATE]) out.push(TRACESTATE, carrier[TRACESTATE]);
  return out;
}

const TRACEPARENT_FORMAT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The producer's context from an entry's fields, or null (no field, or not a valid traceparent). */
function extractParent(otel: Api, fields: Record<string, string>): Context | null {
  const value = fields[TRACEPARENT];
  if (value === undefined) return null;
  const root = otel.ROOT_CONTEXT;
  const extracted = otel.propagation.extract(root, fields);
  if (otel.trace.getSpanContext(extracted) !== undefined) return extracted;
  const m = TRACEPARENT_FORMAT.exec(value);
  if (m === null) return null;
  const sc: OtelApi.SpanContext = { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16), isRemote: true };
  return otel.isSpanContextValid(sc) ? otel.trace.setSpanContext(root, sc) : null;
}

/** What a consumer span records of an entry (a Job has it all). */
export interface ConsumedEntry {
  readonly id: string;
  readonly stream: string;
  readonly deliveries: number;
  readonly fields: Record<string, string>;
}

/** The CONSUMER span of one job (or one batch) and the context its handler runs in. */
export class ConsumerTrace {
  private constructor(
    private readonly otel: Api,
    readonly spans: Span[],
    readonly context: Context,
  ) {}

  /**
   * Starts a `process STREAM` span per entry, each a child of its producer's span and linked
   * to it. A batch handler runs in the first entry's span; the others link their producers.
   */
  static start(entries: readonly ConsumedEntry[], group: string, consumer: string): ConsumerTrace | null {
    const otel = api;
    const tracer = otel === null || entries.length === 0 ? null : activeTracer(otel);
    if (otel === null || tracer === null) return null;
    const spans = entries.map((e) => {
      const parent = extractParent(otel, e.fields);
      const parentContext = parent === null ? undefined : otel.trace.getSpanContext(parent);
      const links = parentContext === undefined ? [] : [{ context: parentContext }];
      // Set on the literal, not spread into another: a spread copy that gains properties gets
      // a hidden class of its own per call once optimized (see ARCHITECTURE.md).
      const attributes = messagingAttributes(e.stream, 'process');
      attributes['messaging.message.id'] = e.id;
      attributes['messaging.consumer.group.name'] = group;
      attributes['messaging.sluice.consumer'] = consumer;
      attributes['messaging.sluice.deliveries'] = e.deliveries;
      if (e.fields['key'] !== undefined) attributes['messaging.sluice.key'] = e.fields['key'];
      return tracer.startSpan(`process ${e.stream}`, { kind: otel.SpanKind.CONSUMER, attributes, links }, parent ?? otel.context.active());
    });
    return new ConsumerTrace(otel, spans, otel.trace.setSpan(otel.context.active(), spans[0]!));
  }

  /** Runs fn with this trace's span active, so spans the handler starts are its children. */
  run<R>(fn: () => R): R {
    return this.otel.context.with(this.context, fn);
  }

  event(index: number, name: string, attributes?: OtelApi.Attributes): void {
    this.spans[index]?.addEvent(name, attributes);
  }

  ok(index: number): void {
    const span = this.spans[index];
    if (span === undefined) return;
    span.setStatus({ code: this.otel.SpanStatusCode.OK });
    span.end();
  }

  failed(index: number, error: unknown): void {
    const span = this.spans[index];
    if (span === undefined) return;
    recordFailure(this.otel, span, error);
    span.end();
  }

  /** Ends the spans still open (results dropped: lease lost, worker closed). */
  endAll(): void {
    for (const span of this.spans) if (span.isRecording()) span.end();
  }
}

function recordFailure(otel: Api, span: Span, error: unknown): void {
  const err = error instanceof Error ? error : new Error(String(error));
  span.recordException(err);
  span.setStatus({ code: otel.SpanStatusCode.ERROR, message: err.message });
}

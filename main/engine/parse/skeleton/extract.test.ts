import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectLanguage } from './detect.js';
import { extractSkeleton } from './extract.js';
import { renderSkeleton } from './render.js';

const FIXTURES = join(import.meta.dirname, '../../../../test/fixtures/code');

async function fixture(name: string) {
  const text = await readFile(join(FIXTURES, name), 'utf8');
  return { text, language: detectLanguage(name, text)! };
}

/** The rendered skeleton of every fixture, pinned: a change to any extractor shows here. */
const EXPECTED: Record<string, [string, string]> = {
  'Gauge.tsx': [
    'tsx',
    `# Gauge.tsx [TSX]
Gauge widget: shows one sensor's latest temperature.
imports: react
interface GaugeProps
class Dashboard(React.Component<{ stations: string[] }>)
  + render() -> ReactNode
def Gauge({ label, value, unit = 'C' }: GaugeProps)  # A round gauge.
def GaugeRow({ items }: { items: GaugeProps[] })
def Panel(props, ref)`,
  ],
  'Graph.java': [
    'java',
    `# Graph.java [Java]
imports: java.util.*, java.util.function.Function, static java.util.Objects.requireNonNull
@SuppressWarnings("unchecked") class Graph<N extends Comparable<N>>(Iterable<N>, Cloneable)  # A directed graph of stations and the links between them.
  + Graph()
  + Graph(Collection<N> nodes)
  + synchronized addNode(N node) -> void  # Adds a node; does nothing if it is there.
  + addEdge(N from, N to, double latencyMs) -> void
  + map<R>(Function<? super N, ? extends R> f) -> List<R>
  + degrees() -> int[]
  + @Override iterator() -> Iterator<N>
  + static of<T extends Comparable<T>>(T... nodes) -> Graph<T>
  enum Weight  # How an edge is weighted.
    + of(Edge<?> edge) -> double
  record Edge<T>(Comparable<Edge<T>>)  # An edge between two nodes.
    + Edge(T from, T to, double latencyMs)
    + @Override compareTo(Edge<T> other) -> int
  @FunctionalInterface interface Visitor<T>  # Visits nodes in order.
    + visit(T node, int depth) -> boolean
    + default andThen(Visitor<T> next) -> Visitor<T>
  class Walker(Iterator<N>)
    + @Override hasNext() -> boolean
    + @Override next() -> N
  @interface Experimental
    + since() -> String`,
  ],
  'api.mts': [
    'typescript',
    `# api.mts [TypeScript]
HTTP client for the station uplink API.
imports: node:timers/promises, ./types.js, ./log.js
type Method = 'GET' | 'POST' | 'DELETE'
type Handler<T = unknown> = (event: T, signal: AbortSignal) => Promise<void>
interface RequestOptions(RetryOptions)  # Options of every request.
interface RetryOptions
  + backoffMs(attempt: number) -> number
enum Status
class BaseClient<TConfig extends { baseUrl: string }>  # Base of every client: owns the retry loop.
  + constructor(protected readonly config: TConfig)
  + async request<T>(path: string, options: RequestOptions = { retries: 2, backoffMs: () => 100 }) -> Promise<T>  # Sends one request, retrying on 5xx.
  + abstract health() -> Promise<boolean>
class StationClient(BaseClient<{ baseUrl: string; token: string }>, Disposable)
  + constructor(baseUrl: string, token: string)
  + readings(station: string) -> Promise<Reading[]>
  + readings(station: string, since: Date) -> Promise<Reading[]>
  + readings(station: string, since?: Date) -> Promise<Reading[]>
  + async health() -> Promise<boolean>
  + get closed() -> boolean
  + async *stream(station: string) -> AsyncGenerator<Reading>
  + onError(error: Error) -> void
  + [Symbol.dispose]() -> void
namespace Units
  def toKelvin(celsius: number) -> number
namespace global
  interface Window
def createClient(env: Record<string, string | undefined>) -> StationClient  # Builds a client from the environment of the caller.
def async withRetry<T>(fn: () => Promise<T>, retries = 3) -> Promise<T>
def internalHelper() -> void`,
  ],
  'graph.cpp': [
    'cpp',
    `# graph.cpp [C++]
Station graph implementation.
imports: "graph.hpp", <queue>
namespace cairn::graph
  impl Graph
    + Graph(std::size_t reserve)
    + defaulted ~Graph()
    + addEdge(int from, int to, double latency) -> int
    + shortestPath(int from, int to, Weight weight) const -> std::optional<std::vector<int>>
  namespace (anonymous)
    def heuristic(int a, int b) -> double
  def distance(const Graph<int>& g, int a, int b) -> double
impl cairn::graph::Router
  + route(int from) -> int
def main(int argc, char** argv) -> int`,
  ],
  'graph.hpp': [
    'cpp',
    `# graph.hpp [C++]
Station graph: nodes, weighted edges and shortest paths.
imports: <functional>, <optional>, <vector>
namespace cairn
  namespace graph
    enum Weight(int)
    struct Edge
    class Graph<typename T, typename Alloc = std::allocator<T>>(Base<T>, Counter)  # A directed graph with payloads of type T.
      + defaulted Graph()
      + explicit Graph(std::size_t reserve)
      + deleted Graph(const Graph&)
      + virtual ~Graph()
      + addEdge(int from, int to, double latency = 1.0) -> int  # Adds an edge; returns its index.
      + shortestPath(int from, int to, Weight weight) const -> std::optional<std::vector<int>>
      + virtual abstract visit(const Visitor& visitor) const -> void
      + static fromEdges(const std::vector<Edge>& edges) -> Graph
      + map<typename F>(F&& f) const -> Graph<decltype(f(std::declval<T>()))>
      + operator==(const Graph& other) const noexcept -> bool
      + operator[](int node) -> T &
      type Visitor = std::function<bool(const T&)>
      struct Stats
    def distance(const Graph<int>& g, int a, int b) -> double  # Graph distance between two nodes.
macro GRAPH_CHECK(cond)`,
  ],
  'legacy.js': [
    'javascript',
    `# legacy.js [JavaScript]
Legacy uplink helpers, kept for the v1 stations.
imports: fs, events
class Queue
  + constructor(limit)
  + push(item)
  + drain()
  + static from(items)
class Link(EventEmitter)
  + constructor(path)
  + static open(path)
  + get connected()
  + async send(frame)
  + *frames(buffer)
object codec
  + encode(frame)
  + decode(buffer)
def parseFrame(buffer, offset = 0)  # Parses a v1 frame.
def checksum(buffer)
def legacyOpen(path)`,
  ],
  'ring.c': [
    'c',
    `# ring.c [C]
Ring buffer implementation.
imports: "ring.h", <string.h>
def static slot(const ring_t *r, size_t i) -> size_t  # Slot of the i-th item.
def ring_init(ring_t *r) -> void
def ring_push(ring_t *r, sample_t sample) -> enum ring_status
def ring_pop(ring_t *r, sample_t *out) -> int
def ring_peek(const ring_t *r, size_t index) -> const sample_t *
def ring_visit(const ring_t *r, ring_visit_fn visit, void *user) -> void
macro WRAP(i)`,
  ],
  'ring.h': [
    'c',
    `# ring.h [C]
Ring buffer of sensor samples, shared by the firmware and the host tools.
imports: <stddef.h>, <stdint.h>, "config.h"
struct sample_t  # One sample.
struct ring  # A ring of samples.
  struct ring_stats
enum ring_status
def ring_init(ring_t *r) -> void  # Empties \`r\`.
def ring_push(ring_t *r, sample_t sample) -> enum ring_status
def ring_pop(ring_t *r, sample_t *out) -> int
def ring_peek(const ring_t *r, size_t index) -> const sample_t *
def ring_visit(const ring_t *r, ring_visit_fn visit, void *user) -> void
def static ring_len(const ring_t *r) -> size_t
def ring_dump(const ring_t *r) -> void
macro RING_FREE(r)  # The number of free slots.
macro RING_FOREACH(r, i)
macro ring_dump(r)`,
  ],
  'ring.rs': [
    'rust',
    `# ring.rs [Rust]
A fixed-capacity ring buffer for sensor samples.
imports: std::fmt::{self, Display}, std::ops::Index, iter::Iter, super::*
mod iter
@derive(Debug, Clone, PartialEq) enum RingError  # Errors of the ring.
@derive(Debug) struct Ring<T, const N: usize>  # A ring of at most \`N\` items.
trait Sample(Clone, Display)  # Something that can be stored in a ring.
  + value(&self) -> f64  # The value as a float.
  + is_valid(&self) -> bool
  type Unit  # The unit the sample is in.
impl<T: Sample, const N: usize> Ring<T, N>
  + pub const new() -> Self  # An empty ring.
  + pub push(&mut self, item: T) -> Result<(), RingError>
  + pub iter(&self) -> Iter<'_, T, N>
  + pub(crate) mean(&self) -> Option<f64>
impl<T, const N: usize> Index<usize> for Ring<T, N>
  + index(&self, index: usize) -> &T
  type Output = T
impl fmt::Display for RingError
  + fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result
type SampleRing = Ring<f64, 64>
@cfg(test) mod tests
  def @test pushes_until_full()
macro @macro_export ring!  # Builds a ring from a list of samples.
def pub async unsafe drain_into<T: Sample + Send>(ring: &mut Ring<T, 64>, out: &mut Vec<T>) -> usize
def sensor_read(channel: u8) -> i32`,
  ],
  'station.py': [
    'python',
    `# station.py [Python]
Weather station readings: parsing, validation and aggregation.
imports: __future__, csv, statistics, dataclasses, datetime, typing, .units, .errors, .uplink, ._speedups
@dataclass(frozen=True) class Reading  # One sample from one sensor.
  + @property fahrenheit(self) -> float  # The temperature in degrees Fahrenheit.
  + @classmethod parse(cls, line: str, *, strict: bool = True) -> "Reading"  # Parses one CSV line.
class Window(Generic[T])  # A sliding window over the last \`size\` items.
  + __init__(self, size: int = 60) -> None
  + push(self, item: T) -> None
  + __iter__(self) -> Iterator[T]
  + __len__(self) -> int
  class Empty(Exception)  # Raised when a statistic is asked of an empty window.
class Station  # A station and the readings it has sent.
  + __init__(self, name: str, uplink: Uplink | None = None)
  + @overload mean(self, sensor: str) -> float
  + @overload mean(self, sensor: None = None) -> dict[str, float]
  + mean(self, sensor=None)  # The mean temperature of one sensor, or of each.
  + async poll(self, every: float = 5.0) -> None
  + gaps(self) -> Iterator[tuple[datetime, datetime]]
def hourly(readings: list[Reading]) -> dict[datetime, float]  # Mean temperature per hour.
def validate(reading: Reading, low: float = -80.0, high: float = 60.0) -> Reading
def celsius_of(f)
def fast_mean(values)  # Pure-Python fallback.`,
  ],
  'uplink.go': [
    'go',
    `# uplink.go [Go]
Package uplink sends station readings to the collector.
imports: context, errors, time, log
interface Sender(io.Closer)  # Sender delivers batches.
  + Send(ctx context.Context, batch []Reading) -> error  # Send delivers one batch.
struct Reading  # Reading is one sample.
type Option = func(*Client)  # Option configures a Client.
type Station = string  # Station names a station.
struct Client(sync.Mutex)  # Client batches and sends readings.
  + Add(r Reading)  # Add queues a reading.
  + Flush(ctx context.Context) -> (sent int, err error)  # Flush sends what is pending.
struct Batch[T any]  # Batch is a typed list of items.
  + Len() -> int
impl Collector
  + String() -> string  # String names the collector; Collector is declared in collector.go.
def New(s Sender, opts ...Option) -> *Client  # New makes a Client that sends through s.
def Backoff(n int) -> time.Duration  # Backoff is the wait before attempt n.
def WithLogger(l *stdlog.Logger) -> Option  # WithLogger sets the logger.
def Map[T, U any](items []T, f func(T) U) -> []U  # Map applies f to each item.`,
  ],

};

describe('extractSkeleton on the fixtures', () => {
  for (const [name, [language, rendered]] of Object.entries(EXPECTED)) {
    it(`renders ${name} (${language})`, async () => {
      const { text, language: detected } = await fixture(name);
      expect(detected).toBe(language);
      const { skeleton, errorRatio } = await extractSkeleton(name, text, detected);
      expect(renderSkeleton(skeleton)).toBe(rendered);
      expect(errorRatio).toBeLessThan(0.01);
    });
  }
});

describe('extractSkeleton details', () => {
  it('gives line ranges, decorators and modifiers in the data', async () => {
    const { text, language } = await fixture('station.py');
    const { skeleton } = await extractSkeleton('station.py', text, language);
    const station = skeleton.classes.find((c) => c.name === 'Station')!;
    expect(station).toMatchObject({ kind: 'class', line_start: 69, line_end: 101, bases: [] });
    const poll = station.methods.find((m) => m.name === 'poll')!;
    expect(poll).toMatchObject({ params: '(self, every: float = 5.0)', return_type: 'None', modifiers: ['async'], line_start: 88, line_end: 90 });
    const overloads = station.methods.filter((m) => m.name === 'mean');
    expect(overloads.map((m) => m.decorators)).toEqual([['overload'], ['overload'], []]);
    expect(skeleton.classes.find((c) => c.name === 'Window')!.classes.map((c) => c.name)).toEqual(['Empty']);
  });

  it("finds a Python module's docstring under a licence comment (Python's email/parser.py)", async () => {
    const text = '# Copyright (C) 2001-2007 Python Software Foundation\n# Author: Barry Warsaw\n\n"""A parser of RFC 2822 and MIME email messages."""\n\n__all__ = ["Parser"]\n\nclass Parser:\n    pass\n';
    const { skeleton } = await extractSkeleton('parser.py', text, 'python');
    expect(skeleton.module_doc).toBe('A parser of RFC 2822 and MIME email messages.');
  });

  it("passes over a C file's credits block as over its licence (git's contrib/credential/gnome-keyring)", async () => {
    const licence = '/*\n * Copyright (C) 2011 John Szakmeister\n *\n * This program is free software; you can redistribute it.\n */\n\n';
    const credits = '/*\n * Credits:\n * - GNOME Keyring API handling originally written by John Szakmeister\n * - ported to credential helper API by Philipp A. Hartmann\n */\n\n';
    const body = '#include <stdio.h>\n\nint main(int argc, char *argv[])\n{\n\treturn 0;\n}\n';
    expect((await extractSkeleton('helper.c', `${licence}${credits}${body}`, 'c')).skeleton.module_doc).toBeNull();
    const purpose = '/*\n * Stores credentials in the GNOME keyring.\n */\n\n';
    expect((await extractSkeleton('helper.c', `${licence}${credits}${purpose}${body}`, 'c')).skeleton.module_doc).toBe('Stores credentials in the GNOME keyring.');
  });

  it('keeps whole doc comments with docs: full', async () => {
    const { text, language } = await fixture('station.py');
    const { skeleton } = await extractSkeleton('station.py', text, language, { docs: 'full' });
    expect(skeleton.module_doc).toBe(
      'Weather station readings: parsing, validation and aggregation.\n\nReadings arrive as CSV lines from the uplink; this module turns them into\ntyped records and rolls them up per hour.',
    );
    const parse = skeleton.classes[0]!.methods.find((m) => m.name === 'parse')!;
    expect(parse.doc).toBe('Parses one CSV line.\n\nRaises ReadingError when a field is missing and `strict` is set.');
    expect(renderSkeleton(skeleton)).toContain(
      '  + @classmethod parse(cls, line: str, *, strict: bool = True) -> "Reading"  # Parses one CSV line.\n    #\n    # Raises ReadingError when a field is missing and `strict` is set.',
    );
  });

  it('attaches Go methods to their receiver, and to an impl entry when the type is elsewhere', async () => {
    const { text, language } = await fixture('uplink.go');
    const { skeleton } = await extractSkeleton('uplink.go', text, language);
    const client = skeleton.classes.find((c) => c.name === 'Client')!;
    expect(client.methods.map((m) => m.name)).toEqual(['Add', 'Flush']);
    expect(client.bases).toEqual(['sync.Mutex']);
    expect(skeleton.classes.find((c) => c.name === 'Collector')).toMatchObject({ kind: 'impl', line_start: 101, line_end: 101 });
  });

  it('attaches qualified C++ definitions to the class or namespace they name', async () => {
    const { text, language } = await fixture('graph.cpp');
    const { skeleton } = await extractSkeleton('graph.cpp', text, language);
    const ns = skeleton.classes[0]!;
    expect(ns).toMatchObject({ name: 'cairn::graph', kind: 'namespace' });
    expect(ns.classes[0]).toMatchObject({ name: 'Graph', kind: 'impl' });
    expect(ns.classes[0]!.methods.map((m) => [m.name, m.kind])).toEqual([
      ['Graph', 'constructor'],
      ['~Graph', 'method'],
      ['addEdge', 'method'],
      ['shortestPath', 'method'],
    ]);
  });

  it('merges a declaration and its out-of-class definition in one file', async () => {
    const text = 'namespace geo {\nclass Graph {\n  void addEdge(int a, int b);\n};\nvoid Graph::addEdge(int x, int y) {}\n}\n';
    const { skeleton } = await extractSkeleton('g.cpp', text, 'cpp');
    expect(renderSkeleton(skeleton)).toBe('# g.cpp [C++]\nnamespace geo\n  class Graph\n    + addEdge(int a, int b) -> void');
  });

  it('extracts nothing from an empty file, without errors', async () => {
    for (const language of ['python', 'typescript', 'go', 'c', 'cpp', 'rust', 'java', 'javascript', 'tsx'] as const) {
      const { skeleton, errors, errorRatio } = await extractSkeleton('empty', '', language);
      expect(skeleton).toMatchObject({ module_doc: null, imports: [], classes: [], functions: [] });
      expect([errors, errorRatio]).toEqual([0, 0]);
    }
  });

  it('recovers from local syntax errors and measures them', async () => {
    const text = 'def ok(a):\n    return a\n\ndef broken(:\n    pass\n\nclass Fine:\n    def m(self): ...\n';
    const { skeleton, errors, errorRatio } = await extractSkeleton('broken.py', text, 'python');
    expect(skeleton.functions.map((f) => f.name)).toContain('ok');
    expect(skeleton.classes.map((c) => c.name)).toEqual(['Fine']);
    expect(errors).toBeGreaterThan(0);
    expect(errorRatio).toBeGreaterThan(0);
    expect(errorRatio).toBeLessThan(0.1);
  });

  it('reports garbage as mostly errors', async () => {
    const text = ')))) ]]] ;;; ,,, ))) ]]] '.repeat(40);
    const { skeleton, errorRatio } = await extractSkeleton('noise.c', text, 'c');
    expect(skeleton.functions).toEqual([]);
    expect(errorRatio).toBeGreaterThan(0.5);
  });

  it('reads declarations that sit inside an ERROR node (extern "C" opened under #ifdef)', async () => {
    const { text, language } = await fixture('ring.h');
    expect(language).toBe('c');
    const { skeleton } = await extractSkeleton('ring.h', text, language);
    expect(skeleton.functions.filter((f) => f.kind === 'function').map((f) => f.name)).toEqual([
      'ring_init',
      'ring_push',
      'ring_pop',
      'ring_peek',
      'ring_visit',
      'ring_len',
      'ring_dump',
    ]);
  });

  it('survives deeply nested generated code with an error inside', async () => {
    const text = `def f():\n    pass\n\nx = ${Array.from({ length: 20_000 }, (_, i) => i).join(' + ')} + )\n`;
    const { skeleton, errors } = await extractSkeleton('deep.py', text, 'python');
    expect(skeleton.functions.map((f) => f.name)).toEqual(['f']);
    expect(errors).toBeGreaterThan(0);
  });

  it('extracts a generated 50,000-line file in well under a few seconds', async () => {
    const parts = ['"""Generated module."""', 'import os', ''];
    for (let i = 0; parts.length < 50_000; i++) {
      parts.push(`class Model${i}(Base):`, `    """Model number ${i}."""`, `    def get(self, key: str, default: int = ${i}) -> int:`, '        value = self.data.get(key, default)', '        return value', '', `def helper_${i}(x):`, '    return x * 2', '');
    }
    const text = parts.join('\n');
    const started = performance.now();
    const { skeleton } = await extractSkeleton('big.py', text, 'python');
    const ms = performance.now() - started;
    expect(skeleton.classes.length).toBe(5556);
    expect(skeleton.functions.length).toBe(5556);
    expect(skeleton.classes[5555]!.methods[0]).toMatchObject({ name: 'get', line_start: 50_001, return_type: 'int' });
    // Two cores shared with other work: generous, yet an accidental quadratic pass would blow it.
    expect(ms).toBeLessThan(8000);
  });
});

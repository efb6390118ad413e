/**
 * The table's Arrow schema and the conversion of records to and from Arrow. Kept apart because
 * it is the hot path of every write and read, written by hand for speed (see toArrowTable and
 * recordsFromArrow), and because the schema is the one thing an existing table on disk fixes.
 */
import {
  Field,
  FixedSizeList,
  Float16,
  Float32,
  Precision,
  Int32,
  List,
  RecordBatch,
  Schema,
  Struct,
  Table as ArrowTable,
  Utf8,
  DataType,
  makeData,
  vectorFromArray,
  type Data,
} from 'apache-arrow';
import { CairnError } from '../../../../shared/errors.js';
import type { ContextType, Provenance } from '../../../../shared/types/node.js';
import { parseCtxUri } from '../../../../shared/uri.js';
import { ftsDocument } from '../../../lib/text-analysis.js';
import type { RecordLevel, StoredRecord, VectorRecord } from '../../../engine/ports/vector-store.js';
import { decodeFloat16, encodeFloat16 } from './float16.js';

/** The analysed text full-text search runs on (see the notes in index.ts). */
export const FTS_COLUMN = 'fts';
export const VECTOR_COLUMN = 'vector';

/** Columns a caller reads (everything but the analysed text and, unless asked, the vector). */
export const RECORD_COLUMNS = [
  'id',
  'uri',
  'parent_uri',
  'level',
  'context_type',
  'category',
  'text',
  'embed_model',
  'tokens',
  'content_hash',
  'updated_at',
  'source',
  'line_start',
  'line_end',
  'page_start',
  'page_end',
  'message_ids',
];

/**
 * How the vector column is laid out. New tables hold a list of at most one 16-bit vector per row
 * (`float16-list`, LanceDB's multivector type): a record without a vector stores nothing for it,
 * where a fixed-size column stores every row's components, null or not (bench/RESULTS.md, issue
 * 20, session 12), and cosine search over one query vector gives the same distances. Tables made
 * before hold one fixed-size vector per row, 16-bit (`float16`, see float16.ts) or 32-bit
 * (`float32`, converted to 16-bit on open: table.ts); they are read and written as they are, and
 * every record they hold has a vector.
 */
export type VectorLayout = 'float16-list' | 'float16' | 'float32';

/** The layout of a vector column's type. */
export function vectorLayoutOf(type: DataType | undefined): VectorLayout {
  if (type && DataType.isList(type)) return 'float16-list';
  const item = (type as FixedSizeList | undefined)?.children?.[0]?.type as { precision?: Precision } | undefined;
  return item?.precision === Precision.HALF ? 'float16' : 'float32';
}

/** The vector length of a vector column's type, whichever its layout; undefined when it is no vector column. */
export function vectorDimensionsOf(type: DataType | undefined): number | undefined {
  const list = vectorLayoutOf(type) === 'float16-list' ? ((type as List).children[0]?.type as FixedSizeList | undefined) : (type as FixedSizeList | undefined);
  return list?.listSize || undefined;
}

function vectorType(dimensions: number, layout: VectorLayout): DataType {
  const vector = new FixedSizeList(dimensions, new Field('item', layout === 'float32' ? new Float32() : new Float16(), true));
  return layout === 'float16-list' ? new List(new Field('item', vector, true)) : vector;
}

export function tableSchema(dimensions: number, layout: VectorLayout = 'float16-list'): Schema {
  const utf8 = (name: string, nullable = false) => new Field(name, new Utf8(), nullable);
  const int32 = (name: string, nullable = false) => new Field(name, new Int32(), nullable);
  return new Schema(
    [
      utf8('id'),
      utf8('uri'),
      utf8('parent_uri', true),
      // Derived from the URI and stored, so a scope filter is a plain equality.
      utf8('scope'),
      int32('level'),
      utf8('context_type'),
      utf8('category'),
      utf8('text'),
      utf8(FTS_COLUMN),
      new Field(VECTOR_COLUMN, vectorType(dimensions, layout), false),
      utf8('embed_model'),
      int32('tokens'),
      utf8('content_hash'),
      utf8('updated_at'),
      utf8('source', true),
      int32('line_start', true),
      int32('line_end', true),
      int32('page_start', true),
      int32('page_end', true),
      new Field('message_ids', new List(new Field('item', new Utf8(), true)), true),
    ],
    new Map([['cairn.schema', '1']]),
  );
}

/** One table row, as the schema holds it (provenance flattened into columns). */
interface Row {
  id: string;
  uri: string;
  parent_uri: string | null;
  scope: string;
  level: number;
  context_type: string;
  category: string;
  text: string;
  fts: string;
  embed_model: string;
  tokens: number;
  content_hash: string;
  updated_at: string;
  source: string | null;
  line_start: number | null;
  line_end: number | null;
  page_start: number | null;
  page_end: number | null;
  message_ids: string[] | null;
}

function utf8Data(values: (string | null)[]): Data {
  return vectorFromArray(values, new Utf8()).data[0] as Data;
}

function int32Data(values: (number | null)[]): Data {
  return vectorFromArray(values, new Int32()).data[0] as Data;
}

/**
 * The Arrow batch of `records`, each checked first. Built by hand: handing LanceDB plain objects
 * with Float32Array vectors costs about 6× more (its row conversion walks every float).
 */
export function toArrowTable(schema: Schema, records: VectorRecord[], dimensions: number): ArrowTable {
  const vectorField = schema.fields.find((field) => field.name === VECTOR_COLUMN)?.type as DataType;
  const layout = vectorLayoutOf(vectorField);
  const rows = records.map((record) => toRow(record, dimensions, layout === 'float16-list'));
  const n = rows.length;
  const withVector = records.filter((record) => record.vector !== null) as (VectorRecord & { vector: Float32Array })[];
  let vectorItems: Data;
  if (layout === 'float32') {
    const flat = new Float32Array(n * dimensions);
    withVector.forEach((record, i) => flat.set(record.vector, i * dimensions));
    vectorItems = makeData({ type: new Float32(), length: n * dimensions, data: flat });
  } else {
    const flat = new Uint16Array(withVector.length * dimensions);
    withVector.forEach((record, i) => encodeFloat16(record.vector, flat, i * dimensions));
    vectorItems = makeData({ type: new Float16(), length: withVector.length * dimensions, data: flat });
  }
  let vector: Data;
  if (layout === 'float16-list') {
    // One vector or none per row: offsets step by one where a record has a vector.
    const list = vectorField as List<FixedSizeList>;
    const offsets = new Int32Array(n + 1);
    records.forEach((record, i) => (offsets[i + 1] = (offsets[i] as number) + (record.vector === null ? 0 : 1)));
    const vectors = makeData({ type: list.children[0]?.type as FixedSizeList, length: withVector.length, nullCount: 0, child: vectorItems });
    vector = makeData({ type: list, length: n, nullCount: 0, valueOffsets: offsets, child: vectors });
  } else {
    vector = makeData({ type: vectorField as FixedSizeList, length: n, nullCount: 0, child: vectorItems });
  }
  const columns: Record<string, Data> = {
    id: utf8Data(rows.map((r) => r.id)),
    uri: utf8Data(rows.map((r) => r.uri)),
    parent_uri: utf8Data(rows.map((r) => r.parent_uri)),
    scope: utf8Data(rows.map((r) => r.scope)),
    level: int32Data(rows.map((r) => r.level)),
    context_type: utf8Data(rows.map((r) => r.context_type)),
    category: utf8Data(rows.map((r) => r.category)),
    text: utf8Data(rows.map((r) => r.text)),
    fts: utf8Data(rows.map((r) => r.fts)),
    vector,
    embed_model: utf8Data(rows.map((r) => r.embed_model)),
    tokens: int32Data(rows.map((r) => r.tokens)),
    content_hash: utf8Data(rows.map((r) => r.content_hash)),
    updated_at: utf8Data(rows.map((r) => r.updated_at)),
    source: utf8Data(rows.map((r) => r.source)),
    line_start: int32Data(rows.map((r) => r.line_start)),
    line_end: int32Data(rows.map((r) => r.line_end)),
    page_start: int32Data(rows.map((r) => r.page_start)),
    page_end: int32Data(rows.map((r) => r.page_end)),
    message_ids: vectorFromArray(
      rows.map((r) => r.message_ids),
      schema.fields.find((field) => field.name === 'message_ids')?.type as List<Utf8>,
    ).data[0] as Data,
  };
  const children = schema.fields.map((field) => {
    const column = columns[field.name];
    if (!column) throw new CairnError('INTERNAL', `No data for column ${field.name}`);
    return column;
  });
  return new ArrowTable(new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children })));
}

function toRow(record: VectorRecord, dimensions: number, vectorsOptional: boolean): Row {
  if (typeof record.id !== 'string' || record.id === '') throw new CairnError('INVALID_INPUT', 'An index record needs an id', { details: { uri: record.uri } });
  if (record.level !== 0 && record.level !== 1 && record.level !== 2) {
    throw new CairnError('INVALID_INPUT', `Record ${record.id} has level ${String(record.level)}; expected 0, 1 or 2`, { details: { id: record.id } });
  }
  if (record.vector === null && !vectorsOptional) {
    throw new CairnError('INVALID_INPUT', `Record ${record.id} has no vector, and this index table (made before vector-less records) needs one`, { details: { id: record.id } });
  }
  if (record.vector !== null && (!(record.vector instanceof Float32Array) || record.vector.length !== dimensions)) {
    throw new CairnError('INVALID_INPUT', `Record ${record.id} has a vector of ${record.vector?.length ?? 'no'} dimensions; the index holds ${dimensions}`, {
      details: { id: record.id, dimensions, got: record.vector?.length },
    });
  }
  for (let i = 0; i < (record.vector?.length ?? 0); i += 1) {
    if (!Number.isFinite((record.vector as Float32Array)[i])) throw new CairnError('INVALID_INPUT', `Record ${record.id} has a non-finite vector component at ${i}`, { details: { id: record.id } });
  }
  // parseCtxUri rejects URIs that could not have come from ContextFS; the scope column comes from it.
  const scope = parseCtxUri(record.uri).scope;
  const p = record.provenance ?? {};
  return {
    id: record.id,
    uri: record.uri,
    parent_uri: record.parent_uri ?? null,
    scope,
    level: record.level,
    context_type: record.context_type,
    category: record.category,
    text: record.text,
    fts: ftsDocument(record.text),
    embed_model: record.embed_model,
    tokens: Math.max(0, Math.round(record.tokens || 0)),
    content_hash: record.content_hash,
    updated_at: record.updated_at,
    source: p.source ?? null,
    line_start: p.lines?.[0] ?? null,
    line_end: p.lines?.[1] ?? null,
    page_start: p.pages?.[0] ?? null,
    page_end: p.pages?.[1] ?? null,
    message_ids: p.message_ids ?? null,
  };
}

interface ArrowVectorLike {
  toArray(): ArrayLike<unknown>;
}

/** A column of a query result, read by row index (missing columns read as null). */
type Column = { get(index: number): unknown } | null;

/**
 * Reads records column by column from a query's Arrow result. LanceDB's `toArray()` hands out
 * one proxy object per row whose every field access walks the schema; at a few hundred rows per
 * query (pools, a directory's children) that conversion cost as much as the search itself.
 * `extra` names a score column (`_distance`, `_score`) returned alongside.
 */
export function recordsFromArrow(data: ArrowTable, withVector: boolean, extra?: string): { record: StoredRecord; extra: number }[] {
  const column = (name: string): Column => (data.schema.fields.some((field) => field.name === name) ? (data.getChild(name) as Column) : null);
  const at = (col: Column, i: number): unknown => (col ? col.get(i) : null);
  const cols = Object.fromEntries(RECORD_COLUMNS.map((name) => [name, column(name)])) as Record<string, Column>;
  const vectors = withVector ? column(VECTOR_COLUMN) : null;
  const listVectors = vectors !== null && vectorLayoutOf(data.schema.fields.find((field) => field.name === VECTOR_COLUMN)?.type) === 'float16-list';
  const scores = extra ? column(extra) : null;
  const out: { record: StoredRecord; extra: number }[] = [];
  for (let i = 0; i < data.numRows; i += 1) {
    const provenance: Provenance = {};
    const source = at(cols.source ?? null, i);
    if (typeof source === 'string') provenance.source = source;
    const lineStart = at(cols.line_start ?? null, i);
    const lineEnd = at(cols.line_end ?? null, i);
    if (typeof lineStart === 'number' && typeof lineEnd === 'number') provenance.lines = [lineStart, lineEnd];
    const pageStart = at(cols.page_start ?? null, i);
    const pageEnd = at(cols.page_end ?? null, i);
    if (typeof pageStart === 'number' && typeof pageEnd === 'number') provenance.pages = [pageStart, pageEnd];
    const ids = at(cols.message_ids ?? null, i) as ArrowVectorLike | null;
    if (ids) provenance.message_ids = Array.from(ids.toArray(), String);
    const parent = at(cols.parent_uri ?? null, i);
    const record: StoredRecord = {
      id: String(at(cols.id ?? null, i)),
      uri: String(at(cols.uri ?? null, i)),
      parent_uri: typeof parent === 'string' ? parent : null,
      level: Number(at(cols.level ?? null, i)) as RecordLevel,
      context_type: String(at(cols.context_type ?? null, i)) as ContextType,
      category: String(at(cols.category ?? null, i)),
      text: String(at(cols.text ?? null, i)),
      embed_model: String(at(cols.embed_model ?? null, i)),
      tokens: Number(at(cols.tokens ?? null, i)),
      content_hash: String(at(cols.content_hash ?? null, i)),
      updated_at: String(at(cols.updated_at ?? null, i)),
      provenance,
    };
    let vector = at(vectors, i) as (ArrowVectorLike & { length?: number; get?(index: number): unknown }) | null;
    // A list column holds one vector or none (see VectorLayout).
    if (vector && listVectors) vector = vector.length ? (vector.get?.(0) as ArrowVectorLike) : null;
    if (vector) {
      const items = vector.toArray();
      // A half-precision column hands out the bits; a 32-bit one is copied, since the Arrow view
      // points into a batch buffer that the next query may reuse.
      record.vector = items instanceof Uint16Array ? decodeFloat16(items) : new Float32Array(items as Float32Array);
    }
    out.push({ record, extra: Number(at(scores, i)) });
  }
  return out;
}

/**
 * LanceDB `where` predicates from the VectorStore port's filters. Kept apart because it is where
 * caller values meet SQL: every value goes through `sqlString` (a quoted literal), and prefixes
 * use `starts_with`, never `LIKE`, so `%` and `_` in URIs are plain characters.
 */
import { CairnError } from '../../../../shared/errors.js';
import type { VectorFilter } from '../../../engine/ports/vector-store.js';

/** A SQL string literal for LanceDB predicates: quotes doubled; backslashes are literal in its dialect. */
export function sqlString(value: string): string {
  if (value.includes('\0')) throw new CairnError('INVALID_INPUT', 'A filter value contains a NUL character', { details: { value } });
  return `'${value.replace(/'/g, "''")}'`;
}

export function sqlList(values: readonly string[]): string {
  return values.map(sqlString).join(', ');
}

/** Translates a filter into a LanceDB `where` predicate, or undefined when there is nothing to filter. */
export function filterToSql(filter: VectorFilter | undefined, extra: string[] = []): string | undefined {
  const clauses = [...extra];
  if (filter) {
    if (filter.scope !== undefined) {
      const scopes = Array.isArray(filter.scope) ? filter.scope : [filter.scope];
      clauses.push(scopes.length === 0 ? 'false' : `scope IN (${sqlList(scopes)})`);
    }
    if (filter.uriPrefix !== undefined && filter.uriPrefix !== '') clauses.push(`starts_with(uri, ${sqlString(filter.uriPrefix)})`);
    if (filter.levels !== undefined) {
      for (const level of filter.levels) {
        if (level !== 0 && level !== 1 && level !== 2) throw new CairnError('INVALID_INPUT', `Unknown level ${String(level)}`, { details: { level } });
      }
      clauses.push(filter.levels.length === 0 ? 'false' : `level IN (${filter.levels.join(', ')})`);
    }
    if (filter.contextTypes !== undefined) clauses.push(filter.contextTypes.length === 0 ? 'false' : `context_type IN (${sqlList(filter.contextTypes)})`);
    if (filter.categories !== undefined) clauses.push(filter.categories.length === 0 ? 'false' : `category IN (${sqlList(filter.categories)})`);
    if (filter.embedModel !== undefined) clauses.push(`embed_model = ${sqlString(filter.embedModel)}`);
    if (filter.notEmbedModel !== undefined) clauses.push(`embed_model <> ${sqlString(filter.notEmbedModel)}`);
    if (filter.parentUris !== undefined) clauses.push(filter.parentUris.length === 0 ? 'false' : `parent_uri IN (${sqlList(filter.parentUris)})`);
  }
  if (clauses.length === 0) return undefined;
  return clauses.map((clause) => `(${clause})`).join(' AND ');
}

/** The predicate for "this node and everything below it" (see VectorStore.deleteByUriPrefix). */
export function subtreePredicate(uri: string): string {
  const base = uri.endsWith('/') ? uri.slice(0, -1) : uri;
  if (base === '' || !base.includes('://')) throw new CairnError('INVALID_URI', `Not a node URI: ${JSON.stringify(uri)}`, { details: { uri } });
  return `uri = ${sqlString(base)} OR starts_with(uri, ${sqlString(`${base}/`)})`;
}

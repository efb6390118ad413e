import { describe, expect, it } from 'vitest';
import { filterToSql, sqlString, subtreePredicate } from './filters.js';

describe('LanceDB predicates', () => {
  it('quotes every value as a literal', () => {
    expect(sqlString("it's")).toBe("'it''s'");
    expect(sqlString("'; DROP TABLE context; --")).toBe("'''; DROP TABLE context; --'");
    expect(() => sqlString('a\0b')).toThrow(/NUL/);
  });

  it('translates a filter into an AND of clauses, and empty lists into false', () => {
    expect(filterToSql(undefined)).toBeUndefined();
    expect(filterToSql({})).toBeUndefined();
    expect(
      filterToSql({ scope: ['resources', 'user'], uriPrefix: "ctx://resources/it's 100%_/", levels: [0, 2], contextTypes: ['memory'], categories: ['a', "b'c"], embedModel: 'm', notEmbedModel: 'n' }),
    ).toBe(
      "(scope IN ('resources', 'user')) AND (starts_with(uri, 'ctx://resources/it''s 100%_/')) AND (level IN (0, 2)) AND (context_type IN ('memory')) AND (category IN ('a', 'b''c')) AND (embed_model = 'm') AND (embed_model <> 'n')",
    );
    expect(filterToSql({ levels: [], categories: [] })).toBe('(false) AND (false)');
    expect(filterToSql({ scope: 'session' }, ["parent_uri = 'x'"])).toBe("(parent_uri = 'x') AND (scope IN ('session'))");
    expect(() => filterToSql({ levels: [3 as 0] })).toThrow(/level/);
  });

  it('matches a node and what is below it, never a sibling sharing a prefix', () => {
    expect(subtreePredicate('ctx://resources/a/')).toBe("uri = 'ctx://resources/a' OR starts_with(uri, 'ctx://resources/a/')");
    expect(subtreePredicate('ctx://resources/a')).toBe(subtreePredicate('ctx://resources/a/'));
    expect(() => subtreePredicate('relative/path')).toThrow(/Not a node URI/);
  });
});

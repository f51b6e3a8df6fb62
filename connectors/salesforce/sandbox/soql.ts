/**
 * The SOQL subset the sandbox answers: `SELECT <fields> FROM <object> [WHERE <condition>]
 * [ORDER BY <field> [ASC|DESC], ...] [LIMIT <n>]`, or `SELECT COUNT() FROM ...` for the number of rows,
 * where a condition combines comparisons (`= != < <= > >=`, `IN (...)`, `NOT IN (...)`, `LIKE '<pattern>'`)
 * with AND, OR and parentheses. That covers what the connector sends (reads by id, changed-since sweeps
 * with a keyset cursor, Accounts by website, an object's size). LIKE matches case-insensitively with `%`
 * and `_` wildcards and `\%` `\_` for the characters themselves, as Salesforce does;
 * `NOT LIKE` and other operators are refused as malformed.
 */
export type SoqlValue = string | number | boolean | null | { datetime: number };

export interface Junction {
  kind: 'junction';
  op: 'and' | 'or';
  left: Condition;
  right: Condition;
}
export interface Comparison {
  kind: 'compare';
  op: '=' | '!=' | '<' | '<=' | '>' | '>=';
  field: string;
  value: SoqlValue;
}
export interface Membership {
  kind: 'in';
  negated: boolean;
  field: string;
  values: SoqlValue[];
}
export interface Like {
  kind: 'like';
  field: string;
  pattern: RegExp;
}
export type Condition = Junction | Comparison | Membership | Like;

export interface SoqlQuery {
  /** Empty for `SELECT COUNT()`. */
  fields: string[];
  /** `SELECT COUNT()`: the answer is the number of matching rows, not the rows. */
  count: boolean;
  object: string;
  where?: Condition;
  orderBy: { field: string; descending: boolean }[];
  limit?: number;
}

export class SoqlError extends Error {
  constructor(
    readonly errorCode: 'MALFORMED_QUERY',
    message: string,
  ) {
    super(message);
  }
}

const TOKEN =
  /\s*(?:('(?:[^'\\]|\\.)*')|(\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2}))|(-?\d+(?:\.\d+)?)|(!=|<=|>=|[=<>(),])|([A-Za-z_][A-Za-z0-9_.]*))/y;

/** `raw` keeps a string literal's escapes, which LIKE reads differently from other comparisons. */
type Token = { kind: 'string' | 'datetime' | 'number' | 'punct' | 'word'; text: string; raw?: string };

function tokenize(soql: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < soql.length) {
    if (/^\s*$/.test(soql.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(soql);
    if (!m) throw new SoqlError('MALFORMED_QUERY', `unexpected token at position ${at}: ${soql.slice(at, at + 20)}`);
    if (m[1] !== undefined)
      tokens.push({ kind: 'string', text: m[1].slice(1, -1).replace(/\\(.)/g, '$1'), raw: m[1].slice(1, -1) });
    else if (m[2] !== undefined) tokens.push({ kind: 'datetime', text: m[2] });
    else if (m[3] !== undefined) tokens.push({ kind: 'number', text: m[3] });
    else if (m[4] !== undefined) tokens.push({ kind: 'punct', text: m[4] });
    else tokens.push({ kind: 'word', text: m[5] ?? '' });
  }
  return tokens;
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }
  private isWord(word: string, offset = 0): boolean {
    const t = this.tokens[this.i + offset];
    return t?.kind === 'word' && t.text.toUpperCase() === word;
  }
  private next(): Token {
    const t = this.tokens[this.i++];
    if (!t) throw new SoqlError('MALFORMED_QUERY', 'unexpected end of query');
    return t;
  }
  private expectWord(word: string): void {
    const t = this.next();
    if (t.kind !== 'word' || t.text.toUpperCase() !== word)
      throw new SoqlError('MALFORMED_QUERY', `expecting ${word}, found '${t.text}'`);
  }
  private expectPunct(p: string): void {
    const t = this.next();
    if (t.kind !== 'punct' || t.text !== p)
      throw new SoqlError('MALFORMED_QUERY', `expecting '${p}', found '${t.text}'`);
  }
  private field(): string {
    const t = this.next();
    if (t.kind !== 'word') throw new SoqlError('MALFORMED_QUERY', `expecting a field name, found '${t.text}'`);
    return t.text;
  }

  query(): SoqlQuery {
    this.expectWord('SELECT');
    const count = this.isWord('COUNT') && this.tokens[this.i + 1]?.text === '(';
    const fields: string[] = [];
    if (count) {
      this.next();
      this.expectPunct('(');
      this.expectPunct(')');
    } else {
      fields.push(this.field());
      while (this.peek()?.text === ',') {
        this.next();
        fields.push(this.field());
      }
    }
    this.expectWord('FROM');
    const object = this.field();
    const query: SoqlQuery = { fields, count, object, orderBy: [] };
    if (this.isWord('WHERE')) {
      this.next();
      query.where = this.or();
    }
    if (this.isWord('ORDER')) {
      this.next();
      this.expectWord('BY');
      do {
        if (query.orderBy.length > 0) this.next();
        const field = this.field();
        let descending = false;
        if (this.isWord('ASC') || this.isWord('DESC')) descending = this.next().text.toUpperCase() === 'DESC';
        query.orderBy.push({ field, descending });
      } while (this.peek()?.text === ',');
    }
    if (this.isWord('LIMIT')) {
      this.next();
      const t = this.next();
      if (t.kind !== 'number' || !/^\d+$/.test(t.text))
        throw new SoqlError('MALFORMED_QUERY', `LIMIT must be a whole number, found '${t.text}'`);
      query.limit = Number(t.text);
    }
    const rest = this.peek();
    if (rest) throw new SoqlError('MALFORMED_QUERY', `unexpected token: '${rest.text}'`);
    return query;
  }

  private or(): Condition {
    let left = this.and();
    while (this.isWord('OR')) {
      this.next();
      left = { kind: 'junction', op: 'or', left, right: this.and() };
    }
    return left;
  }

  private and(): Condition {
    let left = this.primary();
    while (this.isWord('AND')) {
      this.next();
      left = { kind: 'junction', op: 'and', left, right: this.primary() };
    }
    return left;
  }

  private primary(): Condition {
    if (this.peek()?.text === '(') {
      this.next();
      const inner = this.or();
      this.expectPunct(')');
      return inner;
    }
    const field = this.field();
    if (this.isWord('IN') || (this.isWord('NOT') && this.isWord('IN', 1))) {
      const negated = this.next().text.toUpperCase() === 'NOT';
      if (negated) this.next();
      this.expectPunct('(');
      const values = [this.value()];
      while (this.peek()?.text === ',') {
        this.next();
        values.push(this.value());
      }
      this.expectPunct(')');
      return { kind: 'in', negated, field, values };
    }
    if (this.isWord('LIKE')) {
      this.next();
      const t = this.next();
      if (t.kind !== 'string' || t.raw === undefined)
        throw new SoqlError('MALFORMED_QUERY', `LIKE expects a quoted string, found '${t.text}'`);
      return { kind: 'like', field, pattern: likePattern(t.raw) };
    }
    const op = this.next();
    if (op.kind !== 'punct' || !['=', '!=', '<', '<=', '>', '>='].includes(op.text)) {
      throw new SoqlError('MALFORMED_QUERY', `unexpected token after ${field}: '${op.text}'`);
    }
    return { kind: 'compare', op: op.text as Comparison['op'], field, value: this.value() };
  }

  private value(): SoqlValue {
    const t = this.next();
    if (t.kind === 'string') return t.text;
    if (t.kind === 'number') return Number(t.text);
    if (t.kind === 'datetime') {
      const ms = Date.parse(t.text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
      if (Number.isNaN(ms)) throw new SoqlError('MALFORMED_QUERY', `invalid datetime literal: ${t.text}`);
      return { datetime: ms };
    }
    if (t.kind === 'word' && ['NULL', 'TRUE', 'FALSE'].includes(t.text.toUpperCase())) {
      const w = t.text.toUpperCase();
      return w === 'NULL' ? null : w === 'TRUE';
    }
    throw new SoqlError('MALFORMED_QUERY', `expecting a value, found '${t.text}'`);
  }
}

const LIKE_ESCAPES: Record<string, string> = {
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  '"': '"',
  "'": "'",
  '\\': '\\',
  '%': '%',
  _: '_',
};
const regexLiteral = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A LIKE pattern as a whole-value, case-insensitive regular expression. */
function likePattern(raw: string): RegExp {
  let source = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i] ?? '';
    if (ch === '\\') {
      const escaped = LIKE_ESCAPES[(raw[++i] ?? '').toLowerCase()];
      if (escaped === undefined)
        throw new SoqlError('MALFORMED_QUERY', `invalid escape sequence in LIKE pattern: \\${raw[i] ?? ''}`);
      source += regexLiteral(escaped);
    } else if (ch === '%') source += '[\\s\\S]*';
    else if (ch === '_') source += '[\\s\\S]';
    else source += regexLiteral(ch);
  }
  return new RegExp(`^${source}$`, 'i');
}

export function parseSoql(soql: string): SoqlQuery {
  return new Parser(tokenize(soql)).query();
}

/** Every field a query touches, for the unknown-field check. */
export function fieldsOf(query: SoqlQuery): string[] {
  const out = [...query.fields, ...query.orderBy.map((o) => o.field)];
  const walk = (c: Condition | undefined): void => {
    if (!c) return;
    if (c.kind === 'junction') {
      walk(c.left);
      walk(c.right);
    } else out.push(c.field);
  };
  walk(query.where);
  return out;
}

/**
 * Contract syntax: a tokenizer and a recursive-descent parser of one line at a
 * time. AND binds tighter than OR, parentheses group, keywords and function names are
 * case-insensitive, attributes are bare (`[A-Za-z0-9_.$:-]+`) or quoted with `\"` and `\\`.
 * Function names and arity are checked here (they need no schema); attribute types are
 * checked against a schema by validate.ts.
 */
import { CONTRACT_FUNCTIONS, canonicalFunction } from './functions';

export type Comparison = '>=' | '>' | '<=' | '<' | '==' | '!=';

export interface Call {
  /** Canonical function name. */
  readonly fn: string;
  readonly args: readonly string[];
  /** How logs and evaluate results name it: `FN(a, b)`. */
  readonly text: string;
}

export type Expr =
  | { readonly kind: 'or' | 'and'; readonly items: readonly Expr[] }
  | { readonly kind: 'compare'; readonly call: Call; readonly op: Comparison; readonly value: number };

export interface ContractLine {
  /** 1-based position among the lines given (blank and comment lines counted). */
  readonly line: number;
  readonly text: string;
  readonly expr: Expr;
}

/** What is wrong with a line; shown as 'Contract line <n>: <reason>' (contractError). */
export interface ContractProblem {
  readonly line: number;
  readonly reason: string;
}

export const contractError = (p: ContractProblem): string => `Contract line ${p.line}: ${p.reason}`;

export interface ParsedContract {
  /** The lines that must hold (blank lines and comments left out). */
  readonly lines: readonly ContractLine[];
  /** One per line that does not parse, in line order; empty when every line parsed. */
  readonly problems: readonly ContractProblem[];
}

type TokenKind = '(' | ')' | ',' | 'op' | 'word' | 'quoted' | 'end';
interface Token { readonly kind: TokenKind; readonly text: string; readonly column: number }

/** A syntax error at a 1-based column of the line. */
class SyntaxProblem extends Error {}

const WORD = /[A-Za-z0-9_.$:+-]/;
const ATTRIBUTE = /^[A-Za-z0-9_.$:-]+$/;
const NUMBER = /^[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const column = i + 1;
    if (c === ' ' || c === '\t') {
      i++;
    } else if (c === '(' || c === ')' || c === ',') {
      tokens.push({ kind: c, text: c, column });
      i++;
    } else if (c === '<' || c === '>' || c === '=' || c === '!') {
      const two = text.slice(i, i + 2);
      if (two === '>=' || two === '<=' || two === '==' || two === '!=') {
        tokens.push({ kind: 'op', text: two, column });
        i += 2;
      } else if (c === '!') {
        throw new SyntaxProblem(`unexpected [!] at column ${column}`);
      } else {
        // A single '=' reads as '=='.
        tokens.push({ kind: 'op', text: c === '=' ? '==' : c, column });
        i++;
      }
    } else if (c === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new SyntaxProblem(`unterminated quoted attribute at column ${column}`);
        const d = text[i];
        if (d === '"') break;
        if (d === '\\') {
          const e = text[i + 1];
          if (e !== '"' && e !== '\\') throw new SyntaxProblem(`invalid escape in quoted attribute at column ${i + 1}`);
          value += e;
          i += 2;
        } else {
          value += d;
          i++;
        }
      }
      i++;
      tokens.push({ kind: 'quoted', text: value, column });
    } else if (WORD.test(c)) {
      let j = i;
      while (j < text.length && WORD.test(text[j])) j++;
      tokens.push({ kind: 'word', text: text.slice(i, j), column });
      i = j;
    } else {
      throw new SyntaxProblem(`unexpected [${c}] at column ${column}`);
    }
  }
  tokens.push({ kind: 'end', text: '', column: text.length + 1 });
  return tokens;
}

const isKeyword = (t: Token, keyword: 'AND' | 'OR') => t.kind === 'word' && t.text.toUpperCase() === keyword;

/** Recursive descent over one line's tokens. */
class Parser {
  private at = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  line(): Expr {
    const expr = this.expr();
    if (this.peek().kind !== 'end') this.fail('AND, OR or the end of the line');
    return expr;
  }

  private peek(): Token {
    return this.tokens[this.at];
  }

  private next(): Token {
    return this.tokens[this.at++];
  }

  private fail(expected: string): never {
    const t = this.peek();
    throw new SyntaxProblem(t.kind === 'end' ? `unexpected end of line, expected ${expected}` : `unexpected [${t.text}] at column ${t.column}, expected ${expected}`);
  }

  private expect(kind: TokenKind, expected: string): Token {
    if (this.peek().kind !== kind) this.fail(expected);
    return this.next();
  }

  private expr(): Expr {
    const items = [this.conj()];
    while (isKeyword(this.peek(), 'OR')) {
      this.next();
      items.push(this.conj());
    }
    return items.length === 1 ? items[0] : { kind: 'or', items };
  }

  private conj(): Expr {
    const items = [this.atom()];
    while (isKeyword(this.peek(), 'AND')) {
      this.next();
      items.push(this.atom());
    }
    return items.length === 1 ? items[0] : { kind: 'and', items };
  }

  private atom(): Expr {
    if (this.peek().kind === '(') {
      this.next();
      const inner = this.expr();
      this.expect(')', '[)]');
      return inner;
    }
    const call = this.call();
    const op = this.expect('op', 'a comparison (>=, >, <=, <, ==, !=)').text as Comparison;
    const number = this.peek();
    if (number.kind !== 'word' || !NUMBER.test(number.text)) this.fail('a number');
    this.next();
    return { kind: 'compare', call, op, value: Number(number.text) };
  }

  private call(): Call {
    const name = this.peek();
    if (name.kind !== 'word' || !FUNCTION_NAME.test(name.text)) this.fail('a function or [(]');
    const fn = canonicalFunction(name.text);
    if (fn === undefined) throw new SyntaxProblem(`unknown function [${name.text}] at column ${name.column}`);
    this.next();
    this.expect('(', '[(]');
    const args = [this.attribute()];
    while (this.peek().kind === ',') {
      this.next();
      args.push(this.attribute());
    }
    this.expect(')', '[,] or [)]');
    const arity = CONTRACT_FUNCTIONS[fn].args.length;
    if (args.length !== arity) throw new SyntaxProblem(`${fn} takes ${arity} attribute${arity === 1 ? '' : 's'}, not ${args.length}`);
    return { fn, args, text: `${fn}(${args.map(shown).join(', ')})` };
  }

  private attribute(): string {
    const t = this.peek();
    if (t.kind === 'quoted') {
      if (t.text === '') throw new SyntaxProblem(`empty attribute name at column ${t.column}`);
      this.next();
      return t.text;
    }
    if (t.kind !== 'word') this.fail('an attribute');
    if (!ATTRIBUTE.test(t.text)) throw new SyntaxProblem(`invalid attribute name [${t.text}] at column ${t.column} (quote it)`);
    this.next();
    return t.text;
  }
}

/** An attribute as a contract would write it: bare when it can be, else quoted. */
function shown(attribute: string): string {
  return ATTRIBUTE.test(attribute) ? attribute : `"${attribute.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** Parses every line, collecting one error per line that does not parse. */
export function parseContract(lines: readonly string[]): ParsedContract {
  const parsed: ContractLine[] = [];
  const problems: ContractProblem[] = [];
  lines.forEach((text, k) => {
    const trimmed = text.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    try {
      parsed.push({ line: k + 1, text: trimmed, expr: new Parser(tokenize(text)).line() });
    } catch (e) {
      if (!(e instanceof SyntaxProblem)) throw e;
      problems.push({ line: k + 1, reason: e.message });
    }
  });
  return { lines: parsed, problems };
}

/** Every call of an expression, left to right. */
export function callsOf(expr: Expr): Call[] {
  return expr.kind === 'compare' ? [expr.call] : expr.items.flatMap(callsOf);
}

import { parseDecimal } from '../frame';
import type { Summary } from '../summary';
import { ExploreInputError } from './errors';

/**
 * The summary's attributes as the metrics read them: names, kinds, categorical bases, and
 * the checks that turn a bad request into an ExploreInputError.
 *
 * The summary does not publish which binary attributes are categorical levels, so a level
 * is recognised by its name: a binary attribute `<base><separator><level>` belongs to the
 * categorical `<base>` (text before the first separator, since values such as `$100` are
 * more common than separators inside column names).
 */
export class Attributes {
  readonly names: readonly string[];
  private readonly types: readonly ('B' | 'C')[];
  private readonly separator: string;

  constructor(readonly summary: Summary, private readonly projectIndexes?: readonly number[]) {
    this.names = summary.attributeNames;
    this.types = summary.attributeTypes;
    this.separator = summary.options.categorySeparator;
  }

  /** Every index names an attribute of the summary. */
  check(indexes: readonly number[]): void {
    for (const i of indexes) {
      if (!Number.isInteger(i) || i < 0 || i >= this.names.length) throw new ExploreInputError(`unknown attribute index [${i}]`);
    }
  }

  /** The attribute's index in its project (a sub-summary numbers its attributes 0…). */
  projectIndex(i: number): number {
    return this.projectIndexes?.[i] ?? i;
  }

  name(i: number): string {
    return this.names[i];
  }

  isBinary(i: number): boolean {
    return this.types[i] === 'B';
  }

  requireBinary(i: number, metric: string): void {
    if (!this.isBinary(i)) throw new ExploreInputError(`${metric} needs binary attributes, [${this.names[i]}] is continuous`);
  }

  /** The categorical attribute a level belongs to, or null for a C or plain B attribute. */
  base(i: number): string | null {
    const name = this.names[i];
    const at = name.indexOf(this.separator);
    return this.isBinary(i) && at > 0 ? name.slice(0, at) : null;
  }

  /** The level (text after the first separator) of a categorical level attribute, or null. */
  level(i: number): string | null {
    const base = this.base(i);
    return base === null ? null : this.names[i].slice(base.length + this.separator.length);
  }

  /** Indexes of the levels of a categorical attribute, in index order. */
  levels(base: string): number[] {
    const prefix = base + this.separator;
    const out: number[] = [];
    this.names.forEach((name, i) => {
      if (name.startsWith(prefix) && this.base(i) === base) out.push(i);
    });
    return out;
  }
}

/** A known value from `extraParameters` (e.g. `sml_explore_ztest_known_mu`): a decimal number, as a frame cell, else ExploreInputError naming the key. */
export function knownValue(extra: Readonly<Record<string, string>>, key: string): number {
  const text = extra[key];
  if (text === undefined) throw new ExploreInputError(`missing extra parameter ${key}`);
  const value = parseDecimal(String(text).trim());
  if (Number.isNaN(value)) throw new ExploreInputError(`extra parameter ${key} must be a number, not [${text}]`);
  return value;
}

/** Exactly `count` attributes, else ExploreInputError. */
export function requireCount(indexes: readonly number[], count: number, metric: string, what = 'input attributes'): void {
  if (indexes.length !== count) throw new ExploreInputError(`${metric} needs exactly ${count} ${what}, got ${indexes.length}`);
}

/**
 * What an expanded attribute is: `C` continuous, `B` binary, or `T` one level of a
 * categorical attribute (a binary attribute named `<base><separator><level>`).
 */
export type AttributeKind = 'C' | 'B' | 'T';

export interface AttributeInfo {
  readonly name: string;
  readonly kind: AttributeKind;
  /** The categorical attribute a `T` level belongs to; '' for `C` and `B`. */
  readonly base: string;
}

/** The summary's attributes in index order; an index never changes once given. */
export class Schema {
  private readonly infos: AttributeInfo[] = [];
  private readonly byName = new Map<string, number>();
  private readonly levelsByBase = new Map<string, number[]>();

  get size(): number {
    return this.infos.length;
  }

  info(i: number): AttributeInfo {
    return this.infos[i];
  }

  indexOf(name: string): number {
    return this.byName.get(name) ?? -1;
  }

  /** Indexes of the known levels of a categorical attribute, in index order. */
  levelsOf(base: string): readonly number[] {
    return this.levelsByBase.get(base) ?? [];
  }

  /**
   * Why `info` cannot live in this schema, or null if it can: a name keeps its kind (and,
   * for a level, its categorical attribute) forever, and a categorical attribute's name is
   * not also a C/B attribute, so every level's statistics stay derivable from its siblings.
   */
  conflict(info: AttributeInfo): string | null {
    const existing = this.indexOf(info.name);
    if (existing >= 0) {
      const old = this.infos[existing];
      if (old.kind === info.kind && old.base === info.base) return null;
      return `[${info.name}] is already learned as ${describe(old)}, cannot learn it as ${describe(info)}`;
    }
    if (info.kind !== 'T' && this.levelsByBase.has(info.name)) {
      return `[${info.name}] is already learned as a categorical (T) attribute, cannot learn it as ${info.kind}`;
    }
    if (info.kind === 'T' && this.indexOf(info.base) >= 0) {
      return `[${info.base}] is already learned as ${this.infos[this.indexOf(info.base)].kind}, cannot learn it as T`;
    }
    return null;
  }

  add(info: AttributeInfo): number {
    const index = this.infos.length;
    this.infos.push(info);
    this.byName.set(info.name, index);
    if (info.kind === 'T') {
      const levels = this.levelsByBase.get(info.base);
      if (levels) levels.push(index);
      else this.levelsByBase.set(info.base, [index]);
    }
    return index;
  }
}

function describe(info: AttributeInfo): string {
  return info.kind === 'T' ? `a level of categorical attribute [${info.base}]` : info.kind;
}

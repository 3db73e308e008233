import { resolveAttributes, SummaryError, type Summary } from '@sml/stats';
import { smlError } from '@sml/core';
import type { sml } from '@sml/proto';

export interface Resolved {
  inputs: number[];
  targets: number[];
}

/** An MLContext's attributes as summary indexes; unknown ones answer 400 naming them. */
export function resolveContext(summary: Summary, ctx: sml.v1.IMLContext, pid: string, separator: string): Resolved {
  const list = (byIndex: string[] | null | undefined, byName: string[] | null | undefined) => {
    try {
      return resolveAttributes(summary, [...(byIndex ?? []), ...(byName ?? [])], separator);
    } catch (err) {
      if (err instanceof SummaryError) throw smlError('UNKNOWN_ATTRIBUTE', { name: err.attribute, pid }, err);
      throw err;
    }
  };
  return { inputs: list(ctx.inputAttributes, ctx.inputAttributeNames), targets: list(ctx.targets, ctx.targetAttributeNames) };
}

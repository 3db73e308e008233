import { resolveAttributes, type AttributeTable } from '@sml/stats';
import { checkParameters, smlError, toSmlError, type ParameterBound } from '@sml/core';
import type { sml } from '@sml/proto';

export interface Resolved {
  inputs: number[];
  targets: number[];
}

/** An MLContext's attributes as indexes of a summary (or of a project's attribute table); unknown ones answer 400 naming them. */
export function resolveContext(summary: AttributeTable, ctx: sml.v1.IMLContext, pid: string, separator: string): Resolved {
  const list = (byIndex: string[] | null | undefined, byName: string[] | null | undefined) => {
    try {
      return resolveAttributes(summary, [...(byIndex ?? []), ...(byName ?? [])], separator);
    } catch (err) {
      throw toSmlError(err, { pid });
    }
  };
  return { inputs: list(ctx.inputAttributes, ctx.inputAttributeNames), targets: list(ctx.targets, ctx.targetAttributeNames) };
}

/** A request's MLContexts, their numeric extraParameters checked against their bounds (README "Resource limits"). */
export function checkedContexts(context: sml.v1.IExploreContext | null | undefined, bounds: Readonly<Record<string, ParameterBound>>): sml.v1.IMLContext[] {
  const values = context?.values ?? [];
  for (const ctx of values) checkParameters(ctx.extraParameters, bounds);
  return values;
}

/** The summary index of an attribute named in a request; 400 naming it when unknown. */
export function attributeIndex(summary: AttributeTable, name: string, pid: string): number {
  const i = summary.indexOf(name);
  if (i < 0) throw smlError('UNKNOWN_ATTRIBUTE', { name, pid });
  return i;
}

/** An integer extraParameter ≥ 1, or `fallback` when absent or empty. */
export function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw smlError('INVALID_PARAMETER', { name, value, reason: 'expected an integer greater than 0' });
  return Number(value);
}

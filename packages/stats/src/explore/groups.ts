import type { Attributes } from './attributes';
import { ExploreInputError } from './errors';
import { attributeSample, conditionalSample, type Sample } from './sample';
import type { MetricInput } from './types';

/**
 * The two groups of a z, t or F test (STATS.md §3, "as ztest"):
 * - [c1, c2]: each attribute over the rows where it is present;
 * - [c, b1, b2]: c over the rows where binary bⱼ = 1 (class-conditional moments).
 */
export function twoGroups(attributes: Attributes, input: MetricInput, metric: string): [Sample, Sample] {
  const { inputs } = input;
  if (inputs.length === 2) return [attributeSample(attributes.summary, inputs[0]), attributeSample(attributes.summary, inputs[1])];
  if (inputs.length === 3) {
    const [c, b1, b2] = inputs;
    attributes.requireBinary(b1, metric);
    attributes.requireBinary(b2, metric);
    return [conditionalSample(attributes.summary, c, b1), conditionalSample(attributes.summary, c, b2)];
  }
  throw new ExploreInputError(`${metric} needs input attributes [c1, c2] or [c, b1, b2], got ${inputs.length}`);
}

/**
 * The groups of a one-way ANOVA (STATS.md §3):
 * - inputs [c1..ck], no targets: each attribute over the rows where it is present;
 * - inputs [c], targets [b1..bk]: c over the rows where binary bⱼ = 1.
 * At least 2 groups.
 */
export function manyGroups(attributes: Attributes, input: MetricInput, metric: string): Sample[] {
  const { inputs, targets } = input;
  if (targets.length === 0) {
    if (inputs.length < 2) throw new ExploreInputError(`${metric} needs at least 2 input attributes (or 1 input and at least 2 binary targets), got ${inputs.length}`);
    return inputs.map((c) => attributeSample(attributes.summary, c));
  }
  if (inputs.length !== 1) throw new ExploreInputError(`${metric} with targets needs exactly 1 input attribute, got ${inputs.length}`);
  if (targets.length < 2) throw new ExploreInputError(`${metric} needs at least 2 binary targets, got ${targets.length}`);
  for (const b of targets) attributes.requireBinary(b, metric);
  return targets.map((b) => conditionalSample(attributes.summary, inputs[0], b));
}

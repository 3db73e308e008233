import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DataFrame, PredictFrame } from '@sml/stats';
import { irisFrame } from './conformance';

type Cell = number | string;

interface Fixture {
  datasets: {
    iris: { extra: number[][]; extra_species: string[] };
    gauss: { names: string[]; types: string[]; rows: Cell[][]; extra: Cell[][] };
  };
  lda: Array<{ dataset: Dataset; inputs: string[]; target: string; decision: number[]; labels: number[] }>;
  mlda: Array<{ dataset: Dataset; inputs: string[]; targets: string[]; classes: string[]; partition_classes: string[]; scores: number[][]; labels: string[] }>;
  mqda: Array<{ dataset: Dataset; inputs: string[]; column: string; classes: string[]; scores: number[][]; labels: string[] }>;
  bayes: Array<{ dataset: Dataset; inputs: string[]; target: string; laplace_factor: number; prob: number[]; labels: number[]; epsilon: number }>;
}

export type Dataset = 'iris' | 'gauss';

/** Reference values from fixtures/gen_classifiers.py (scikit-learn). */
export const fixture: Fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'classifiers.json'), 'utf8'));

const text = (rows: Cell[][]): string[][] => rows.map((r) => r.map(String));

/** The rows a dataset learns. */
export function learnFrame(dataset: Dataset): DataFrame {
  if (dataset === 'iris') return irisFrame();
  const g = fixture.datasets.gauss;
  return { attributeNames: g.names, attributeTypes: g.types, data: text(g.rows) };
}

/** The learned rows followed by the extra rows, as the fixture predicted them. */
export function predictFrame(dataset: Dataset): PredictFrame {
  const learned = learnFrame(dataset);
  const extra = dataset === 'iris'
    ? fixture.datasets.iris.extra.map((r, k) => [...r, fixture.datasets.iris.extra_species[k]])
    : fixture.datasets.gauss.extra;
  return { names: learned.attributeNames, rows: [...(learned.data), ...text(extra)] };
}

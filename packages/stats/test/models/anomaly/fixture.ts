import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DataFrame, PredictFrame } from '@sml/stats';
import { irisFrame } from '../classifiers/conformance';

export type Dataset = 'iris' | 'mix' | 'centred';

interface Scored {
  dataset: Dataset;
  inputs: string[];
  score: number[];
  labels: number[];
  threshold: number;
}

interface Fixture {
  datasets: Record<'mix' | 'centred', { names: string[]; rows: number[][]; extra: number[][] }>;
  iris_extra: number[][];
  covest: Array<Scored & { estimate_type: string; shrinkage: number; lw_summary: number; covariance: number[][] }>;
  repca: Array<Scored & { q: number | null; q_used: number; train_mean: number; discarded: number }>;
  oospca: Array<Scored & { ratio: number }>;
  hba: Array<Scored & { bins: number; alpha: number; tol: number }>;
  ecod: Scored[];
}

/** Reference values from fixtures/gen_anomaly.py (sklearn, numpy, pyod transcriptions). */
export const fixture: Fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'anomaly.json'), 'utf8'));

const text = (rows: number[][]): string[][] => rows.map((r) => r.map(String));

export function learnFrame(dataset: Dataset): DataFrame {
  if (dataset === 'iris') return irisFrame();
  const d = fixture.datasets[dataset];
  return { attributeNames: d.names, attributeTypes: d.names.map((n) => (n.startsWith('b') ? 'B' : 'C')), data: text(d.rows) };
}

/** The learned rows followed by the extra rows, over the dataset's scored columns. */
export function predictFrame(dataset: Dataset): PredictFrame {
  if (dataset === 'iris') {
    const f = irisFrame();
    const names = f.attributeNames.slice(0, 4);
    return { names, rows: [...(f.data).map((r) => r.slice(0, 4)), ...text(fixture.iris_extra)] };
  }
  const d = fixture.datasets[dataset];
  return { names: d.names, rows: text([...d.rows, ...d.extra]) };
}

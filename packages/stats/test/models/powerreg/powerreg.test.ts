// powerreg (STATS.md §4) against SciPy yeojohnson_llf over the project's grid of powers,
// numpy lstsq of the transformed target and scikit-learn's inverse transform
// (fixtures/gen_powerreg.py), and the laws of the power columns the Summary tracks
// (power-columns.ts): ordinary attributes (learn in chunks = at once, forget is the exact inverse,
// merge), exact through serialize/deserialize (snapshot + replay), bounded options.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ALGORITHMS, type DataFrame, type Model, powerColumnName, powerGrid, powerreg, resolveAttributes, Summary, type SummaryOptions,
  yeoJohnson, yeoJohnsonInverse,
} from '@sml/stats';

interface Fixture {
  names: string[];
  rows: string[][];
  learned: number;
  grid: number[];
  llf: number[];
  best: number;
  scipy_lambda: number;
  coef: number[];
  predictions: number[];
  values: number[];
  powers: number[];
  transform: number[][];
  inverse: number[][];
}
const fixture: Fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'powerreg.json'), 'utf8'));
const OPTIONS: SummaryOptions = { power: { column: 'y', min: -2, max: 2, steps: 20 } };
const LEARNED = fixture.rows.slice(0, fixture.learned);
const PREDICTED = fixture.rows.slice(fixture.learned);
const INPUTS = ['x1', 'x2', 'x3'];

function frame(rows: string[][], names = fixture.names): DataFrame {
  return { attributeNames: names, attributeTypes: names.map(() => 'C'), data: rows };
}

function learnInChunks(cuts: number[], options: SummaryOptions = OPTIONS): Summary {
  const s = new Summary(options);
  let from = 0;
  for (const to of [...cuts, LEARNED.length]) {
    if (to > from) s.learn(frame(LEARNED.slice(from, to)));
    from = to;
  }
  return s;
}

function build(summary: Summary, inputs: string[] = INPUTS, target = 'y'): Model {
  return powerreg.build(summary, { algo: 'powerreg', inputs: resolveAttributes(summary, inputs), targets: resolveAttributes(summary, [target]), params: {} });
}

/** |a − e| ≤ tol · max(1, |e|). */
function close(actual: number, expected: number, tol: number): void {
  if (!(Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected)))) throw new Error(`${actual} is not ${expected} within ${tol}`);
}

const summary = learnInChunks([120, 333]);
const model = build(summary);

describe('powerreg against SciPy yeojohnson + OLS', () => {
  it('tracks the grid SymetryML names: pt_y^-2.0 … pt_y^2.0 by 0.2', () => {
    expect(powerGrid(OPTIONS.power!)).toEqual(fixture.grid);
    const names = fixture.grid.map((p) => powerColumnName('y', p));
    expect(names.slice(0, 3)).toEqual(['pt_y^-2.0', 'pt_y^-1.8', 'pt_y^-1.6']);
    expect(names[10]).toBe('pt_y^0.0');
    expect(names[20]).toBe('pt_y^2.0');
    expect(summary.attributeNames).toEqual([...fixture.names, ...names]);
  });

  it('the log-likelihood of every power is SciPy yeojohnson_llf within 1e-9 relative', () => {
    fixture.grid.forEach((p, k) => close(Number(model.extra()[`llf_${powerColumnName('y', p)}`]), fixture.llf[k], 1e-9));
  });

  it(`picks SciPy's best power of the grid (${fixture.best}; unrestricted SciPy λ ${fixture.scipy_lambda.toFixed(4)})`, () => {
    expect(model.info().power).toBe(String(fixture.best));
    expect(model.info().transformed_target).toBe(powerColumnName('y', fixture.best));
    expect(Math.abs(fixture.best - fixture.scipy_lambda)).toBeLessThanOrEqual(0.2);
  });

  it('coefficients are numpy lstsq of the transformed target within 1e-9', () => {
    const extra = model.extra();
    ['const', ...INPUTS].forEach((name, k) => close(Number(extra[`coef_${name}`]), fixture.coef[k], 1e-9));
  });

  it('predicts res on the original scale (scikit-learn inverse transform) within 1e-9, and the power', () => {
    const predictions = model.predict({ names: fixture.names, rows: PREDICTED });
    predictions.forEach((p, r) => {
      close(Number(p.res), fixture.predictions[r], 1e-9);
      expect(p.power).toBe(String(fixture.best));
    });
  });

  it('the transform is SciPy yeojohnson, the inverse scikit-learn\'s, on both branches and λ = 0, 2', () => {
    fixture.powers.forEach((p, i) => {
      fixture.values.forEach((v, j) => {
        close(yeoJohnson(v, p), fixture.transform[i][j], 1e-12);
        close(yeoJohnsonInverse(fixture.transform[i][j], p), fixture.inverse[i][j], 1e-12);
      });
    });
  });

  it('a linear prediction outside the range of the transform has no preimage: NaN', () => {
    expect(yeoJohnsonInverse(1.5, -1)).toBeNaN(); // λ < 0: t < −1/λ = 1
    expect(yeoJohnsonInverse(-1.5, 3)).toBeNaN(); // λ > 2: t > 1/(2 − λ) = −1
  });

  it('is registered; refuses a project without power columns, another target, and power columns as inputs', () => {
    expect(ALGORITHMS.powerreg).toBe(powerreg);
    const plain = new Summary();
    plain.learn(frame(LEARNED.slice(0, 20)));
    expect(() => build(plain)).toThrow(/sml_project_power_column/);
    expect(() => build(summary, ['x1', 'x2'], 'x3')).toThrow(/must be the project's power column \[y\]/);
    expect(() => build(summary, ['x1', 'pt_y^0.0'])).toThrow(/is a power column of the target/);
  });
});

describe('power columns (power-columns.ts)', () => {
  it('learning in chunks gives the same model as learning at once', () => {
    const whole = learnInChunks([]);
    const rows = { names: fixture.names, rows: PREDICTED };
    const expected = model.predict(rows);
    build(whole).predict(rows).forEach((p, r) => close(Number(p.res), Number(expected[r].res), 1e-9));
    expect(build(whole).info().power).toBe(model.info().power);
    close(whole.power!.jacobianSum, summary.power!.jacobianSum, 1e-13);
  });

  it('forget is the exact inverse of learn: counts back to 0, sums to ≤ 1e-9 relative', () => {
    const s = learnInChunks([]);
    const before = s.power!.jacobianSum;
    s.forget(frame(LEARNED.slice(0, 200)));
    s.forget(frame(LEARNED.slice(200)));
    expect(s.power!.rowCount).toBe(0);
    expect(Math.abs(s.power!.jacobianSum)).toBeLessThanOrEqual(1e-9 * Math.abs(before));
    for (const name of s.attributeNames) {
      expect(s.count(name)).toBe(0);
      expect(Math.abs(s.moments(name).sum)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(summary.moments(name).sum)));
    }
  });

  it('learn A ∪ B then forget B builds the model of A', () => {
    const s = learnInChunks([]);
    s.forget(frame(LEARNED.slice(300)));
    const a = new Summary(OPTIONS);
    a.learn(frame(LEARNED.slice(0, 300)));
    const rows = { names: fixture.names, rows: PREDICTED };
    build(s).predict(rows).forEach((p, r) => close(Number(p.res), Number(build(a).predict(rows)[r].res), 1e-9));
  });

  it('snapshot + replay gives the identical summary, bit for bit', () => {
    const straight = learnInChunks([]);
    for (const cut of [1, 250]) {
      const before = new Summary(OPTIONS);
      before.learn(frame(LEARNED.slice(0, cut)));
      const reloaded = Summary.deserialize(before.serialize()); // the snapshot…
      reloaded.learn(frame(LEARNED.slice(cut))); // …then the rest of the log replayed
      expect(reloaded.serialize()).toEqual(learnInChunks([cut]).serialize());
      expect(build(reloaded).state()).toEqual(build(learnInChunks([cut])).state());
    }
    expect(Summary.deserialize(straight.serialize()).serialize()).toEqual(straight.serialize());
  });

  it('merge adds the power columns and the Jacobian term', () => {
    const left = new Summary(OPTIONS);
    left.learn(frame(LEARNED.slice(0, 250)));
    const right = new Summary(OPTIONS);
    right.learn(frame(LEARNED.slice(250)));
    left.merge(right);
    expect(left.power!.rowCount).toBe(LEARNED.length);
    fixture.grid.forEach((p, k) => close(Number(build(left).extra()[`llf_${powerColumnName('y', p)}`]), fixture.llf[k], 1e-9));
  });

  it('rows missing the target (or frames without it) add no power column values', () => {
    const s = new Summary(OPTIONS);
    s.learn(frame([['1', '2', '3', ''], ['1', '2', '3', '4']]));
    s.learn(frame([['1', '2', '3']], ['x1', 'x2', 'x3']));
    expect(s.power!.rowCount).toBe(1);
    expect(s.count('pt_y^1.0')).toBe(1);
    close(s.moments('pt_y^1.0').sum, 4, 1e-15); // λ = 1 is the identity on y ≥ 0
  });

  it('a frame carrying a power column, or the column as a category, is refused naming it', () => {
    const s = new Summary(OPTIONS);
    expect(() => s.learn(frame([['1', '2']], ['y', 'pt_y^0.2']))).toThrow(/pt_y\^0\.2.*power column/);
    expect(() => s.learn({ attributeNames: ['y'], attributeTypes: ['T'], data: [['a']] })).toThrow(/must be of type C or B/);
    expect(s.rowCount).toBe(0);
  });

  it('a transformed value beyond the summary\'s range is refused naming the power column', () => {
    const s = new Summary({ power: { column: 'y', min: 1, max: 10, steps: 9 } });
    expect(() => s.learn(frame([['1e20']], ['y']))).toThrow(/column \[pt_y\^4\.0\]: value .* larger in magnitude than 1e\+64/);
  });

  it('options are checked: a column, min < max within ±10, 1 to 100 steps', () => {
    const bad = (power: NonNullable<SummaryOptions['power']>) => () => new Summary({ power });
    expect(bad({ column: '', min: -2, max: 2, steps: 20 })).toThrow(/sml_project_power_column/);
    expect(bad({ column: 'y', min: 2, max: 2, steps: 20 })).toThrow(/smaller than sml_project_power_max/);
    expect(bad({ column: 'y', min: -11, max: 2, steps: 20 })).toThrow(/sml_project_power_min must be a number in \[-10, 10\]/);
    expect(bad({ column: 'y', min: -2, max: Infinity, steps: 20 })).toThrow(/sml_project_power_max/);
    expect(bad({ column: 'y', min: -2, max: 2, steps: 0 })).toThrow(/sml_project_power_steps/);
    expect(bad({ column: 'y', min: -2, max: 2, steps: 101 })).toThrow(/sml_project_power_steps/);
    expect(bad({ column: 'y', min: -2, max: 2, steps: 2.5 })).toThrow(/sml_project_power_steps/);
  });
});

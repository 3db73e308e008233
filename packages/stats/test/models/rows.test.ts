// A model over the expansions of a categorical column (`color$red`, …) predicts from a frame
// that sends the column itself exactly as from one that sends its expansions (rows.ts).
// Reference: the expanded frame, the form every model test compares with scikit-learn/statsmodels.
import { ALGORITHMS, resolveAttributes, Summary } from '@sml/stats';

const COLORS = ['red', 'green', 'blue'];
const rows = Array.from({ length: 60 }, (_, i) => {
  const color = COLORS[i % 3];
  const x = (i * 7) % 11;
  return [color, String(x), String(2 * x + (color === 'red' ? 5 : color === 'green' ? -1 : 0) + ((i * 5) % 3) / 10)];
});
const summary = new Summary();
summary.learn({ attributeNames: ['color', 'x', 'y'], attributeTypes: ['T', 'C', 'C'], data: rows });
const inputs = ['color$blue', 'color$green', 'x'];
const model = ALGORITHMS.mlr.build(summary, { algo: 'mlr', inputs: resolveAttributes(summary, inputs), targets: resolveAttributes(summary, ['y']), params: {} });

function expanded(cells: string[][]): { names: string[]; rows: string[][] } {
  return {
    names: inputs,
    rows: cells.map(([color, x]) => {
      const c = color.trim().toLowerCase();
      const level = (l: string) => (color === '' ? '' : c === l ? '1' : '0');
      return [level('blue'), level('green'), x];
    }),
  };
}

describe('predict reads a categorical column for its expansions', () => {
  const cells = [['red', '3'], ['green', '3'], ['blue', '3'], [' Blue ', '4'], ['', '4'], ['purple', '5']];

  it('equals the prediction from the expanded columns, levels matched as learning matches them', () => {
    const fromColumn = model.predict({ names: ['color', 'x'], rows: cells });
    const fromExpansions = model.predict(expanded(cells));
    expect(fromColumn).toEqual(fromExpansions);
    // The three colours differ: the column was read, not imputed with the learned means.
    expect(new Set(fromColumn.slice(0, 3).map((p) => p.res)).size).toBe(3);
  });

  it('a missing cell is imputed as a missing expansion is; an unseen level is 0 in every expansion', () => {
    const [missing, unseen, red] = model.predict({ names: ['color', 'x'], rows: [['', '4'], ['purple', '4'], ['red', '4']] });
    expect(missing).toEqual(model.predict({ names: ['x'], rows: [['4']] })[0]);
    expect(unseen).toEqual(red);
  });

  it('an expansion the frame sends itself wins over the column', () => {
    const both = model.predict({ names: ['color', 'color$blue', 'color$green', 'x'], rows: [['red', '1', '0', '3']] });
    expect(both).toEqual(model.predict(expanded([['blue', '3']])));
  });
});

import { holdout, posteriors, type TestRow } from '../src/holdout';
import type { ModelInfo } from '../src/models';

const model = (algo: string, targets: string[]): ModelInfo => ({
  modelId: 'm', algo, inputAttributeNames: ['x'], targetAttributeNames: targets, info: {}, extra: {}, assessment: {}, params: {}, creationDate: 0,
});

describe('holdout: the task read from the predictions', () => {
  it('one-hot targets (mlda): the middle of three classes along a line is ranked by its posterior, not its raw linear score', () => {
    // Linear discriminants δk(x) = μk·x − μk²/2 with μ = 0, 2, 4 at x = 0, 2, 4, 1.9, 2.1: b is the middle class.
    const xs = [0, 2, 4, 1.9, 2.1, 0.2, 3.8];
    const actual = ['a', 'b', 'c', 'b', 'b', 'a', 'c'];
    const rows: TestRow[] = xs.map((x, i) => {
      const scores = [0, 2, 4].map((mu) => mu * x - (mu * mu) / 2);
      const res = ['a', 'b', 'c'][scores.indexOf(Math.max(...scores))];
      return { targets: { a: actual[i] === 'a' ? '1' : '0', b: actual[i] === 'b' ? '1' : '0', c: actual[i] === 'c' ? '1' : '0' }, prediction: { res, a: String(scores[0]), b: String(scores[1]), c: String(scores[2]) } };
    });
    const h = holdout(model('mlda', ['a', 'b', 'c']), rows);
    expect(h.kind).toBe('classification');
    if (h.kind !== 'classification') return;
    expect(h.metrics.aucByClass).toEqual({ a: 1, b: 1, c: 1 });
    expect(h.metrics.accuracy).toBe(1);
  });

  it('posteriors: the softmax of the scores, unchanged by a constant added to every score', () => {
    const p = posteriors(['a', 'b'], [1000, 1000 + Math.log(3)]);
    expect(p.a).toBeCloseTo(0.25, 12);
    expect(p.b).toBeCloseTo(0.75, 12);
  });

  it('p_<class> keys (rf_classifier): the target cell is the class, the keys its probabilities', () => {
    const rows: TestRow[] = [
      { targets: { kind: 'x' }, prediction: { res: 'x', p_x: '0.8', p_y: '0.2' } },
      { targets: { kind: 'y' }, prediction: { res: 'x', p_x: '0.6', p_y: '0.4' } },
      { targets: { kind: '' }, prediction: { res: 'y', p_x: '0.1', p_y: '0.9' } },
    ];
    const h = holdout(model('rf_classifier', ['kind']), rows);
    expect(h.kind === 'classification' && [h.metrics.n, h.metrics.classes, h.metrics.confusion, h.metrics.auc]).toEqual([2, ['x', 'y'], [[1, 0], [1, 0]], 1]);
  });

  it('one target with 0/1 answers and 0/1 cells is binary, scored by prob; other answers make a regression', () => {
    const binary = holdout(model('lr', ['b']), [
      { targets: { b: '1' }, prediction: { res: '1', prob: '0.7' } }, { targets: { b: '0' }, prediction: { res: '1', prob: '0.6' } },
    ]);
    expect(binary.kind === 'classification' && [binary.metrics.classes, binary.metrics.auc, binary.metrics.accuracy]).toEqual([['0', '1'], 1, 0.5]);
    const regression = holdout(model('mlr', ['b']), [{ targets: { b: '1' }, prediction: { res: '0.5' } }, { targets: { b: 'NA' }, prediction: { res: '1' } }]);
    expect(regression.kind === 'regression' && [regression.metrics.n, regression.metrics.rmse]).toEqual([1, 0.5]);
  });

  it('a model without targets or a test file without rows is refused', () => {
    expect(() => holdout(model('kmeans', []), [])).toThrow('model m (kmeans) has no target to test against');
    expect(() => holdout(model('mlr', ['y']), [])).toThrow('the test file has no data rows');
  });
});

/**
 * Online models learned elsewhere (Summary.prepare's deferOnline, takeOnline, learnOnline,
 * putOnline): a service learns the forest and the micro-clusters of each batch on a worker
 * thread, their state sent there and back by postMessage (structuredClone here, with the same
 * transfer list). Reference: the same batches learned by Summary.learn, in one thread. The
 * serialized summaries must be the same bytes, whatever the batches.
 */
import fc from 'fast-check';
import { Summary, clusterOptionsOf, forestOptionsOf, learnOnline, onlineTransferList, type OnlineState } from '@sml/stats';

const names = ['x1', 'x2', 'x3', 'label', 'y'];
const types = ['C', 'C', 'C', 'B', 'C'];

function options(kind: 'classifier' | 'regressor' | 'anomaly' | 'star') {
  const forest = forestOptionsOf(kind === 'classifier' ? { rf_type: 'rf_classifier', rf_target_name: 'label', rf_features: 'x1:x2:x3', rf_num_trees: '7', rf_complexity: '12' }
    : kind === 'regressor' ? { rf_type: 'rf_regressor', rf_target_name: 'y', rf_features: 'x1:x2', rf_num_trees: '5' }
      : kind === 'anomaly' ? { rf_type: 'rf_anomaly', rf_features: 'x1:x2:x3', rf_num_trees: '4' }
        : { rf_type: 'rf_classifier', rf_target_name: 'label', rf_num_trees: '3' })!;
  const clusters = clusterOptionsOf({ cluster_features: 'x1:x2', cluster_num_centroids: '6', cluster_warmup: '9' })!;
  return { forest, clusters, histogram: 'streaming' as const };
}

/** What a worker thread does with a state sent to it: a copy, its forest arrays moved (detached here). */
function sent(state: OnlineState): OnlineState {
  return structuredClone(state, { transfer: onlineTransferList(state) });
}

const cell = fc.oneof(fc.double({ min: -50, max: 50, noNaN: true }).map((v) => v.toFixed(3)), fc.constant(''));
const row = fc.tuple(cell, cell, cell, fc.constantFrom('0', '1', ''), cell);
const batches = fc.array(fc.array(row, { minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 6 });

test.each(['classifier', 'regressor', 'anomaly', 'star'] as const)('%s: batches learned with their online models on another thread give the same summary, byte for byte', (kind) => {
  fc.assert(fc.property(batches, (data) => {
    const reference = new Summary(options(kind));
    const deferred = new Summary(options(kind));
    for (const rows of data) {
      const frame = { attributeNames: names, attributeTypes: types, data: rows };
      reference.learn(frame);
      const change = deferred.prepare('learn', { frame }, {}, true);
      change.commit();
      expect(change.online).toBeDefined();
      const out = deferred.takeOnline();
      // Taken out: nothing reads the forest meanwhile.
      expect(() => deferred.serialize()).toThrow(/another thread/);
      const back = learnOnline(deferred.onlineOptions, sent(out), [change.online!]);
      deferred.putOnline(sent(back));
    }
    expect(Buffer.from(deferred.serialize()).equals(Buffer.from(reference.serialize()))).toBe(true);
  }), { numRuns: 40 });
});

test('a summary without online models defers nothing; forget defers nothing', () => {
  const plain = new Summary();
  expect(plain.prepare('learn', { frame: { attributeNames: names, attributeTypes: types, data: [['1', '2', '3', '1', '4']] } }, {}, true).online).toBeUndefined();
  const s = new Summary(options('classifier'));
  s.learn({ attributeNames: names, attributeTypes: types, data: [['1', '2', '3', '1', '4']] });
  expect(s.prepare('forget', { frame: { attributeNames: names, attributeTypes: types, data: [['1', '2', '3', '1', '4']] } }, {}, true).online).toBeUndefined();
});

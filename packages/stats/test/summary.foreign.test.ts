/**
 * Summary.deserialize with checks (an imported project's summary): the options must be the
 * ones expected, and the state within the limits a learn keeps it in, checked while reading.
 */
import { Summary, type SummaryOptions } from '@sml/stats';
import { frame } from './helpers';

const learned = (options: SummaryOptions, names: string[], types: string[], rows: string[][]) => {
  const s = new Summary(options);
  s.learn(frame(names, types, rows));
  return s;
};

test('a summary read with checks is the same summary, and takes the expected maxAttributes', () => {
  const s = learned({ maxAttributes: 50, histogram: 'streaming' }, ['x', 'c'], ['C', 'T'], [['1', 'a'], ['2', 'b']]);
  const read = Summary.deserialize(s.serialize(), { options: { maxAttributes: 10, histogram: 'streaming' } });
  expect(read.hash()).not.toBe(s.hash()); // the options differ (maxAttributes) …
  expect(read.attributeNames).toEqual(s.attributeNames);
  expect(read.options.maxAttributes).toBe(10);
  expect(Summary.deserialize(read.serialize()).serialize()).toEqual(read.serialize());
  expect(read.comoments('x', 'c$a')).toEqual(s.comoments('x', 'c$a')); // … the statistics do not
});

test('other options, more attributes, longer names, more partitions or sequence entries than allowed are refused', () => {
  const wide = learned({}, ['a', 'b', 'c'], ['C', 'C', 'C'], [['1', '2', '3']]);
  expect(() => Summary.deserialize(wide.serialize(), { options: { histogram: 'exact' } })).toThrow(/not the ones its settings give/);
  expect(() => Summary.deserialize(wide.serialize(), { options: { maxAttributes: 2 } })).toThrow('would keep 3 attributes, over the limit of 2');
  const named = learned({}, ['a_long_name'], ['C'], [['1']]);
  expect(() => Summary.deserialize(named.serialize(), { options: {}, maxNameLength: 5 })).toThrow(/more than 5 characters/);
  const split = learned({ partitionSplit: 'g' }, ['g', 'x'], ['T', 'C'], [['u', '1'], ['v', '2'], ['w', '3']]);
  expect(Summary.deserialize(split.serialize(), { options: { partitionSplit: 'g' }, maxPartitions: 3 }).partitionValues()).toEqual(['u', 'v', 'w']);
  expect(() => Summary.deserialize(split.serialize(), { options: { partitionSplit: 'g' }, maxPartitions: 2 })).toThrow('would keep 3 partitions, over the limit of 2');
  const seq = learned({ sequenceOrder: 1 }, ['s'], ['T'], [['a'], ['b'], ['a'], ['c']]);
  const entries = seq.sequences!.entries();
  expect(() => Summary.deserialize(seq.serialize(), { options: { sequenceOrder: 1 }, maxSequenceEntries: entries - 1 })).toThrow(/sequence counts/);
  expect(Summary.deserialize(seq.serialize(), { options: { sequenceOrder: 1 }, maxSequenceEntries: entries }).sequences!.entries()).toBe(entries);
});

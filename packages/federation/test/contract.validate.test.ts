/** contractValidate's checks against a schema: every error collected, in line order. */
import { Summary } from '@sml/stats';
import { type AttributeSchema, schemaOf, validateContract } from '@sml/federation';

const SCHEMA: AttributeSchema = new Map([['age', 'C'], ['smoker', 'B'], ['color$red', 'T'], ['color$blue', 'T']]);
const errors = (...lines: string[]) => validateContract(lines, SCHEMA).errors;

test('a contract over known attributes of the right types is valid', () => {
  expect(errors(
    'COUNT(age) >= 100 AND MEAN(smoker) < 0.5',
    'COVAR(age, color$red) != 0 OR LINCORR(smoker, age) > -1',
    'COND_MEAN(age, smoker) > 40 AND COMPL_COND_STDDEV(smoker, color$blue) >= 0',
    'MEAN_WHEN_TRUE(age, color$red) > 1 AND NUM_OCCURENCE_WHEN_FALSE(smoker, color$red) > 1 AND PCT_OF_TRUE(color$blue, smoker) < 90',
  )).toEqual([]);
});

test('unknown attributes and wrong types are named, all of them, with syntax errors in line order', () => {
  expect(errors(
    'MEAN(weight) > 1 AND MEAN_WHEN_TRUE(smoker, age) > 1',
    'FOO(age) > 1',
    'PCT_OF_TRUE(age, color) > 1',
  )).toEqual([
    'Contract line 1: attribute [weight] of MEAN(weight) is not in the schema',
    'Contract line 1: attribute [smoker] of MEAN_WHEN_TRUE(smoker, age) is B, MEAN_WHEN_TRUE takes C there',
    'Contract line 1: attribute [age] of MEAN_WHEN_TRUE(smoker, age) is C, MEAN_WHEN_TRUE takes B there',
    'Contract line 2: unknown function [FOO] at column 1',
    'Contract line 3: attribute [age] of PCT_OF_TRUE(age, color) is C, PCT_OF_TRUE takes B there',
    'Contract line 3: attribute [color] of PCT_OF_TRUE(age, color) is not in the schema',
  ]);
});

test('B arguments take binary and categorical levels, never C', () => {
  expect(errors('COND_VARIANCE(age, color$red) > 0')).toEqual([]);
  expect(errors('COND_VARIANCE(age, age) > 0')).toEqual(['Contract line 1: attribute [age] of COND_VARIANCE(age, age) is C, COND_VARIANCE takes B there']);
  expect(errors('NUM_OCCURENCE_WHEN_TRUE(smoker, age) > 0')).toHaveLength(1);
});

test('schemaOf reads a summary: continuous C, binary and categorical levels B', () => {
  const s = new Summary();
  s.learn({ attributeNames: ['age', 'smoker', 'color'], attributeTypes: ['C', 'B', 'T'], data: [['40', '1', 'red'], ['50', '0', 'blue']] });
  expect([...schemaOf(s)]).toEqual([['age', 'C'], ['smoker', 'B'], ['color$blue', 'B'], ['color$red', 'B']]);
  expect(validateContract(['MEAN_WHEN_TRUE(age, color$red) > 1'], schemaOf(s)).errors).toEqual([]);
});

/** Schema conflicts and the contract-failure actions. */
import { Summary } from '@sml/stats';
import { type AttributeSchema, contractActionOf, contractDecision, evaluateContract, parseContract, schemaConflicts } from '@sml/federation';

test('action keys: block by default, the two spellings per side, anything else refused', () => {
  expect(contractActionOf('snd', undefined)).toBe('block');
  expect(contractActionOf('snd', 'fed_psr_contract_snd_fail_action_allow')).toBe('allow');
  expect(contractActionOf('rcv', 'fed_psr_contract_rcv_fail_action_block')).toBe('block');
  expect(contractActionOf('rcv', 'fed_psr_contract_snd_fail_action_allow')).toBeNull();
  expect(contractActionOf('snd', 'allow')).toBeNull();
});

test('a name held as C on one side and binary on the other conflicts; one-sided names do not', () => {
  const local: AttributeSchema = new Map([['age', 'C'], ['smoker', 'B'], ['color$red', 'T']]);
  const peer: AttributeSchema = new Map([['age', 'B'], ['smoker', 'B'], ['color$red', 'B'], ['weight', 'C']]);
  expect(schemaConflicts(local, peer)).toEqual(['age']);
  expect(schemaConflicts(local, new Map([['color$red', 'C']]))).toEqual(['color$red']);
});

describe('contractDecision', () => {
  const summary = new Summary();
  summary.learn({ attributeNames: ['x'], attributeTypes: ['C'], data: [['1'], ['2']] });
  const verdict = (line: string) => evaluateContract(parseContract([line]).lines, summary);
  const failing = verdict('MEAN(x) > 5');

  test('no contract or a passing one: go on, nothing counted', () => {
    expect(contractDecision('snd', null, 'block')).toEqual({ proceed: true, contractError: false });
    expect(contractDecision('rcv', verdict('MEAN(x) < 5'), 'block')).toEqual({ proceed: true, contractError: false });
  });

  test('block stops (withheld send, excluded peer), allow goes on; both count and log the values', () => {
    expect(contractDecision('snd', failing, 'block')).toEqual({ proceed: false, contractError: true, log: 'send blocked by the contract: Contract line 1 failed: MEAN(x)=1.5' });
    expect(contractDecision('snd', failing, 'allow')).toMatchObject({ proceed: true, contractError: true });
    expect(contractDecision('rcv', failing, 'block')).toEqual({ proceed: false, contractError: true, log: 'peer excluded by the contract: Contract line 1 failed: MEAN(x)=1.5' });
    expect(contractDecision('rcv', failing, 'allow')).toMatchObject({ proceed: true, contractError: true, log: 'folded despite the contract (allow): Contract line 1 failed: MEAN(x)=1.5' });
  });
});

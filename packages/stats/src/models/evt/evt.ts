import { cellText, parseDecimal } from '../../frame';
import type { Summary } from '../../summary';
import { num } from '../rows';
import { type Algorithm, ModelInputError, type ModelSpec, type PredictFrame, type Prediction } from '../types';
import { StateModel, type ModelState } from '../base';
import { EvtWrapper, type EvtState } from './wrapper';
import { as, readModelState, texts } from '../state-read';

interface EvtModelState extends ModelState {
  wrapper: EvtState;
}

/**
 * `evt` (STATS.md §4, §5): SPOT/DSPOT on one input attribute's values in the rows it
 * predicts, calibrated on the first `evt_warmup_size` of them across predict calls. It is
 * stateful: each predict tests and learns its rows in order, and `state()` reflects that, so
 * the caller must store the state again after every predict. Nothing is built from the
 * summary but the attribute's name. A missing or non-numeric cell is neither tested nor
 * learned (no imputation: a mean would count as a normal score).
 */
export const evt: Algorithm = {
  name: 'evt',
  task: 'anomaly',
  build(summary: Summary, spec: ModelSpec) {
    if (spec.inputs.length !== 1) throw new ModelInputError(`evt needs exactly one input attribute, got ${spec.inputs.length}`);
    if (spec.targets.length > 0) throw new ModelInputError('evt takes no target attribute');
    const index = spec.inputs[0];
    const names = summary.attributeNames;
    if (!Number.isInteger(index) || index < 0 || index >= names.length) throw new ModelInputError(`evt: unknown attribute index [${index}]`);
    const wrapper = new EvtWrapper(spec.params);
    const params = wrapper.params;
    const info: Record<string, string> = {
      evt_warmup_size: num(params.warmupSize),
      evt_alpha: num(params.alpha),
      evt_quantile: num(params.quantile),
      evt_tdigest: String(params.tdigest),
      evt_window_size: num(params.windowSize),
      evt_max_exceedances: num(params.maxExceedances),
      evt_grimshaw: String(params.grimshaw),
    };
    return new EvtModel({ algo: 'evt', inputNames: [names[index]], targetNames: [], info, extra: {}, wrapper: wrapper.state() });
  },
  restore(state) {
    const s = readModelState(state, 'evt');
    texts(s.inputNames, 'state.inputNames', 1);
    EvtWrapper.restore(s.wrapper, 'state.wrapper');
    return new EvtModel(as<EvtModelState>(s));
  },
};

class EvtModel extends StateModel<EvtModelState> {
  /** Predicting changes the state: the caller stores it again after each predict. */
  readonly stateful = true;
  private readonly wrapper: EvtWrapper;

  constructor(s: EvtModelState) {
    super(s);
    this.wrapper = EvtWrapper.restore(s.wrapper);
  }

  /** Tests and learns the rows in order: one map per row (STATS.md §5 keys only). */
  predict(frame: PredictFrame): Prediction[] {
    const column = frame.names.indexOf(this.s.inputNames[0]);
    return frame.rows.map((cells) => {
      const text = column < 0 ? null : cellText(cells[column]);
      return { ...this.wrapper.update(text === null ? NaN : parseDecimal(text)) };
    });
  }

  override state(): EvtModelState {
    return { ...this.s, wrapper: this.wrapper.state() };
  }
}

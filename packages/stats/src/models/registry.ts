import { anomalyDetectors } from './anomaly';
import { classifiers } from './classifiers';
import { evt } from './evt';
import { forests } from './forest/model';
import { kmeans } from './kmeans/model';
import { linearFamily } from './linear-family';
import { mlr } from './mlr';
import { powerreg } from './powerreg/model';
import { sequenceModels } from './sequence';
import { survivalModels } from '../survival';
import type { Algorithm } from './types';

/** Every algorithm name of API.md §7 (selectModel's `algo`). */
export const ALGORITHM_NAMES = [
  'bayes', 'covest', 'ecod', 'elasticnet', 'evt', 'hmm', 'km', 'kmeans', 'lasso', 'lr', 'lda', 'lsvm', 'lsvr', 'mc', 'mlda', 'mlr', 'mqda',
  'pcr', 'plsq', 'powerreg', 'ridge', 'rf_classifier', 'rf_regressor', 'rf_anomaly', 'oospca', 'hba', 'repca',
] as const;

/** The algorithms this build implements, by name. */
export const ALGORITHMS: Readonly<Record<string, Algorithm>> = { mlr, ...linearFamily, ...classifiers, ...anomalyDetectors, ...sequenceModels, evt, kmeans, ...forests, powerreg, ...survivalModels };

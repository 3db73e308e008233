/**
 * The linear model family of STATS.md §4 beyond `mlr`, each built from the summary's
 * regression moments (README.md in this folder: parameters, defaults, decisions).
 */
import type { Algorithm } from '../types';
import { elasticnet, lasso } from './elastic-net';
import { lr } from './logistic';
import { lsvm } from './lsvm';
import { pcr } from './pcr';
import { plsq } from './pls';
import { lsvr, ridge } from './ridge';

export { LinearClassifier, type BinaryOutput, type LinearClassifierState } from './classifier';
export { chebyshevQuadratic, type QuadraticApproximation } from './logistic';
export { elasticnet, lasso, lr, lsvm, lsvr, pcr, plsq, ridge };

export const linearFamily: Record<string, Algorithm> = { ridge, lasso, elasticnet, pcr, plsq, lsvr, lsvm, lr };

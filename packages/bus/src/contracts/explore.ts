import { sml } from '@sml/proto';
import { defineContracts } from './contract';

/** The explore service: stateless, any replica answers any project. */
export const explore = defineContracts('explore', {
  run: { request: sml.v1.ExploreRequest, reply: sml.v1.ExploreReply, errors: ['PROJECT_NOT_FOUND', 'BAD_METRIC', 'MISSING_KNOWN_VALUE', 'EXPLORE_INPUT', 'UNKNOWN_ATTRIBUTE', 'EXECUTOR_FULL', 'FUSION_CELL_FAILED'] },
  dataDrift: { request: sml.v1.DataDriftRequest, reply: sml.v1.ExploreReply, errors: ['PROJECT_NOT_FOUND', 'UNKNOWN_DRIFT_METRIC', 'ROLLING_WINDOW_UNSUPPORTED', 'INVALID_PARAMETER', 'EXPLORE_INPUT', 'UNKNOWN_ATTRIBUTE', 'FUSION_CELL_FAILED'] },
  density: { request: sml.v1.DensityRequest, reply: sml.v1.DensityReply, errors: ['PROJECT_NOT_FOUND', 'HISTOGRAMS_DISABLED', 'GENERIC_EXCEPTION', 'UNKNOWN_ATTRIBUTE', 'INVALID_PARAMETER', 'FUSION_CELL_FAILED'] },
  conditionalDensity: { request: sml.v1.DensityRequest, reply: sml.v1.DensityReply, errors: ['PROJECT_NOT_FOUND', 'HISTOGRAMS_DISABLED', 'GENERIC_EXCEPTION', 'UNKNOWN_ATTRIBUTE', 'INVALID_PARAMETER', 'FUSION_CELL_FAILED'] },
  matrix: { request: sml.v1.MatrixRequest, reply: sml.v1.MatrixReply, errors: ['PROJECT_NOT_FOUND', 'SVD_NO_TARGET', 'SVD_NO_VALUES', 'EXPLORE_INPUT', 'UNKNOWN_ATTRIBUTE', 'EXECUTOR_FULL', 'FUSION_CELL_FAILED'] },
  kaplanMeier: { request: sml.v1.KmRequest, reply: sml.v1.KmReply, errors: ['PROJECT_NOT_FOUND', 'NOT_SURVIVAL', 'KM_TYPE', 'KM_ALPHA', 'SURVIVAL_INPUT', 'FUSION_CELL_FAILED'] },
  cumulativeIncidence: { request: sml.v1.CifRequest, reply: sml.v1.CifReply, errors: ['PROJECT_NOT_FOUND', 'NOT_SURVIVAL', 'SURVIVAL_INPUT', 'FUSION_CELL_FAILED'] },
});

/** The operations of the explore service. */
export type ExploreOp = keyof typeof explore;

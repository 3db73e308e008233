import { sml } from '@sml/proto';
import { defineContracts } from './contract';

/** The projects service (API.md §4, §7, §12): every operation on the shard of its project (subjects.projects). */
export const projects = defineContracts('projects', {
  dssCreate: { request: sml.v1.DsInfoRequest, reply: sml.v1.Empty, errors: ['DS_UNKNOWN_TYPE', 'DS_INVALID', 'DS_NULL', 'DS_EXISTS', 'INVALID_NAME', 'DS_LIMIT', 'DS_TOO_LARGE'] },
  dssList: { request: sml.v1.DsRequest, reply: sml.v1.DsListReply, errors: [] },
  dssPreview: { request: sml.v1.DsInfoRequest, reply: sml.v1.DsSampleReply, errors: ['DS_UNKNOWN_TYPE', 'DS_INVALID', 'DS_NULL', 'DS_UNREADABLE'] },
  dssGet: { request: sml.v1.DsRequest, reply: sml.v1.DsInfoReply, errors: ['DS_NOT_FOUND'] },
  dssUpdate: { request: sml.v1.DsInfoRequest, reply: sml.v1.Empty, errors: ['DS_UNKNOWN_TYPE', 'DS_INVALID', 'DS_NULL', 'DS_NOT_FOUND', 'DS_TOO_LARGE'] },
  dssDelete: { request: sml.v1.DsRequest, reply: sml.v1.Empty, errors: ['DS_NOT_FOUND'] },
  dssSample: { request: sml.v1.DsRequest, reply: sml.v1.DsSampleReply, errors: ['DS_NOT_FOUND', 'DS_INVALID', 'DS_UNREADABLE'] },
  dssBrowse: { request: sml.v1.DsInfoRequest, reply: sml.v1.DsBrowseReply, errors: ['DS_UNKNOWN_TYPE', 'DS_INVALID', 'DS_NULL', 'DS_NOT_BROWSABLE', 'DS_UNREADABLE'] },
  addds: { request: sml.v1.ProjectDsRequest, reply: sml.v1.Empty, errors: ['PROJECT_NOT_FOUND', 'DS_NOT_FOUND', 'FUSION_NO_DATA'] },
  detachds: { request: sml.v1.ProjectDsRequest, reply: sml.v1.Empty, errors: ['PROJECT_NOT_FOUND', 'DS_NOT_FOUND'] },
  lfStats: { request: sml.v1.ProjectRequest, reply: sml.v1.LfStatsReply, errors: ['PROJECT_NOT_FOUND'] },
  create: { request: sml.v1.ProjectCreateRequest, reply: sml.v1.ProjectCreateReply, errors: ['PROJECT_EXISTS', 'INVALID_SEQUENCE_ORDER', 'INVALID_PROJECT_TYPE', 'INVALID_PARAMETER', 'GENERIC_EXCEPTION', 'INVALID_NAME', 'PROJECT_LIMIT'] },
  list: { request: sml.v1.ProjectListRequest, reply: sml.v1.ProjectListReply, errors: [] },
  info: { request: sml.v1.ProjectRequest, reply: sml.v1.ProjectInfoReply, errors: ['PROJECT_NOT_FOUND', 'EXECUTOR_FULL', 'FUSION_CELL_FAILED'] },
  delete: { request: sml.v1.ProjectRequest, reply: sml.v1.Empty, errors: ['PROJECT_NOT_FOUND'] },
  log: { request: sml.v1.ProjectRequest, reply: sml.v1.ProjectLogReply, errors: ['PROJECT_NOT_FOUND'] },
  learn: { request: sml.v1.LearnRequest, reply: sml.v1.LearnReply, errors: ['PROJECT_NOT_FOUND', 'PROJECT_FROZEN', 'INVALID_FRAME', 'FORGET_NOT_LEARNED', 'NOT_PERSISTED', 'EXECUTOR_FULL', 'IDEMPOTENCY_KEY_REUSED', 'STATE_LIMIT', 'PROJECT_UNLOADABLE', 'FUSION_NO_DATA'] },
  forget: { request: sml.v1.LearnRequest, reply: sml.v1.LearnReply, errors: ['PROJECT_NOT_FOUND', 'PROJECT_FROZEN', 'INVALID_FRAME', 'FORGET_NOT_LEARNED', 'NOT_PERSISTED', 'EXECUTOR_FULL', 'IDEMPOTENCY_KEY_REUSED', 'STATE_LIMIT', 'PROJECT_UNLOADABLE', 'FUSION_NO_DATA'] },
  save: { request: sml.v1.ProjectRequest, reply: sml.v1.Empty, errors: ['PROJECT_NOT_FOUND', 'PROJECT_NOT_PERSISTENT'] },
  unload: { request: sml.v1.ProjectRequest, reply: sml.v1.Empty, errors: ['PROJECT_NOT_FOUND', 'PROJECT_NOT_PERSISTENT'] },
  freeze: { request: sml.v1.ProjectRequest, reply: sml.v1.Empty, errors: ['PROJECT_NOT_FOUND'] },
  unfreeze: { request: sml.v1.ProjectRequest, reply: sml.v1.Empty, errors: ['PROJECT_NOT_FOUND'] },
  merge: { request: sml.v1.MergeRequest, reply: sml.v1.Empty, errors: ['PROJECT_NOT_FOUND', 'MERGE_SELF', 'MERGE_INCOMPATIBLE', 'FUSION_NO_DATA'] },
  histogramEnable: { request: sml.v1.HistogramEnableRequest, reply: sml.v1.Empty, errors: ['PROJECT_NOT_FOUND'] },
  dsLearn: { request: sml.v1.DsLearnRequest, reply: sml.v1.LearnReply, errors: ['PROJECT_NOT_FOUND', 'DS_NOT_FOUND', 'PROJECT_FROZEN', 'DS_LEARN_FAILED', 'DS_UNREADABLE', 'EXECUTOR_FULL', 'FUSION_NO_DATA'] },
  infoAll: { request: sml.v1.ProjectInfoAllRequest, reply: sml.v1.ProjectInfoListReply, errors: ['EXECUTOR_FULL'] },
  rename: { request: sml.v1.ProjectRenameRequest, reply: sml.v1.Empty, errors: ['PROJECT_NOT_FOUND', 'PROJECT_EXISTS', 'INVALID_PARAMETER'] },
  export: { request: sml.v1.ExportRequest, reply: sml.v1.ExportReply, errors: ['PROJECT_NOT_FOUND', 'EXPORT_TOO_LARGE', 'FUSION_CELL_FAILED'] },
  import: { request: sml.v1.ImportRequest, reply: sml.v1.Empty, errors: ['PROJECT_EXISTS', 'PROJECT_LIMIT', 'INVALID_PARAMETER', 'IMPORT_TOO_LARGE', 'IMPORT_VERSION', 'IMPORT_INVALID', 'INVALID_NAME'] },
  modelExport: { request: sml.v1.ExportRequest, reply: sml.v1.ExportReply, errors: ['PROJECT_NOT_FOUND', 'MODEL_NOT_FOUND', 'EXPORT_TOO_LARGE'] },
  modelImport: { request: sml.v1.ImportRequest, reply: sml.v1.Empty, errors: ['PROJECT_NOT_FOUND', 'IMPORT_TOO_LARGE', 'IMPORT_VERSION', 'IMPORT_INVALID', 'INVALID_NAME'] },
  selectModel: { request: sml.v1.SelectModelRequest, reply: sml.v1.ModelReply, errors: ['PROJECT_NOT_FOUND', 'UNKNOWN_ALGORITHM', 'ALGORITHM_NOT_AVAILABLE', 'MODEL_INPUT', 'UNKNOWN_ATTRIBUTE', 'EXECUTOR_FULL', 'FUSION_CELL_FAILED', 'FUSION_ALGORITHM'] },
  kmeansOptimize: { request: sml.v1.SelectModelRequest, reply: sml.v1.ExploreReply, errors: ['PROJECT_NOT_FOUND', 'MODEL_INPUT', 'UNKNOWN_ATTRIBUTE', 'INVALID_PARAMETER', 'EXECUTOR_FULL', 'FUSION_ALGORITHM'] },
  autoSelect: { request: sml.v1.SelectModelRequest, reply: sml.v1.ModelReply, errors: ['PROJECT_NOT_FOUND', 'AUTOSELECT_TASK', 'MODEL_INPUT', 'SINGULAR_SYSTEM', 'UNKNOWN_ATTRIBUTE', 'INVALID_PARAMETER', 'AUTOSELECT_BUDGET', 'AUTOSELECT_CANDIDATES', 'EXECUTOR_FULL', 'FUSION_CELL_FAILED'] },
  reduce: { request: sml.v1.ReduceRequest, reply: sml.v1.ModelReply, errors: ['PROJECT_NOT_FOUND', 'REDUCE_HEURISTIC', 'REDUCE_ALGORITHM', 'REDUCE_REFUSED', 'MODEL_INPUT', 'SINGULAR_SYSTEM', 'UNKNOWN_ATTRIBUTE', 'INVALID_PARAMETER', 'SELECTION_BUDGET', 'FUSION_CELL_FAILED'] },
  learnPredict: { request: sml.v1.LearnPredictRequest, reply: sml.v1.PredictReply, errors: ['PROJECT_NOT_FOUND', 'MODEL_NOT_FOUND', 'MODEL_INPUT', 'PREDICT_TOO_COSTLY', 'PREDICT_REPLY_TOO_LARGE', 'MODEL_CHANGED', 'MODEL_STATE_INVALID', 'PROJECT_FROZEN', 'INVALID_FRAME', 'NOT_PERSISTED', 'IDEMPOTENCY_KEY_REUSED', 'STATE_LIMIT', 'SINGULAR_SYSTEM', 'FUSION_NO_DATA'] },
  modelInfo: { request: sml.v1.ModelRequest, reply: sml.v1.ModelReply, errors: ['PROJECT_NOT_FOUND', 'MODEL_NOT_FOUND'] },
  modelDelete: { request: sml.v1.ModelRequest, reply: sml.v1.Empty, errors: ['PROJECT_NOT_FOUND', 'MODEL_NOT_FOUND'] },
  predict: { request: sml.v1.PredictRequest, reply: sml.v1.PredictReply, errors: ['PROJECT_NOT_FOUND', 'MODEL_NOT_FOUND', 'MODEL_INPUT', 'PREDICT_TOO_COSTLY', 'PREDICT_REPLY_TOO_LARGE', 'MODEL_CHANGED', 'MODEL_STATE_INVALID'] },
  evtWrapper: { request: sml.v1.EvtWrapperRequest, reply: sml.v1.Empty, errors: ['EVT_PROJECT_NOT_FOUND', 'GENERIC_EXCEPTION', 'MODEL_INPUT', 'MODEL_CHANGED'] },
  evtDelete: { request: sml.v1.ModelRequest, reply: sml.v1.Empty, errors: ['EVT_PROJECT_NOT_FOUND', 'EVT_NOT_FOUND', 'MODEL_CHANGED'] },
  dsPredict: { request: sml.v1.DsPredictRequest, reply: sml.v1.DsPredictReply, errors: ['PROJECT_NOT_FOUND', 'MODEL_NOT_FOUND', 'DS_NOT_FOUND', 'DS_NOT_WRITABLE', 'DS_INVALID', 'DS_UNREADABLE', 'DS_PREDICT_FAILED', 'MODEL_INPUT', 'EXECUTOR_FULL'] },
  dsSelectModel: { request: sml.v1.SelectModelRequest, reply: sml.v1.ModelReply, errors: ['PROJECT_NOT_FOUND', 'DS_NOT_FOUND', 'DS_INVALID', 'DS_UNREADABLE', 'DS_SELECT_TOO_LARGE', 'UNKNOWN_ALGORITHM', 'ALGORITHM_NOT_AVAILABLE', 'MODEL_INPUT', 'SINGULAR_SYSTEM', 'UNKNOWN_ATTRIBUTE', 'INVALID_PARAMETER', 'SELECTION_BUDGET', 'EXECUTOR_FULL', 'FUSION_CELL_FAILED', 'FUSION_ALGORITHM'] },
  dsAutoSelect: { request: sml.v1.SelectModelRequest, reply: sml.v1.ModelReply, errors: ['PROJECT_NOT_FOUND', 'AUTOSELECT_TASK', 'MODEL_INPUT', 'SINGULAR_SYSTEM', 'UNKNOWN_ATTRIBUTE', 'INVALID_PARAMETER', 'AUTOSELECT_BUDGET', 'AUTOSELECT_CANDIDATES', 'EXECUTOR_FULL', 'DS_NOT_FOUND', 'DS_INVALID', 'DS_UNREADABLE', 'DS_SELECT_TOO_LARGE', 'FUSION_CELL_FAILED'] },
  encoderAssign: { request: sml.v1.EncoderAssignRequest, reply: sml.v1.Empty, errors: ['PROJECT_NOT_FOUND', 'ENCODER_NOT_FOUND'] },
  cellSummary: { request: sml.v1.CellSummaryRequest, reply: sml.v1.CellSummaryReply, errors: ['PROJECT_NOT_FOUND', 'FUSION_NOT_A_CELL'] },
  fusionCreate: { request: sml.v1.FusionCreateRequest, reply: sml.v1.ProjectCreateReply, errors: ['PROJECT_EXISTS', 'FUSION_CELLS_INVALID', 'INVALID_PARAMETER', 'INVALID_NAME', 'PROJECT_LIMIT'] },
  fusionCellsStatus: { request: sml.v1.FusionCellsRequest, reply: sml.v1.FusionCellsStatusReply, errors: ['PROJECT_NOT_FOUND', 'NOT_A_FUSION_PROJECT'] },
  fusionUpdateCells: { request: sml.v1.FusionCellsRequest, reply: sml.v1.Empty, errors: ['PROJECT_NOT_FOUND', 'NOT_A_FUSION_PROJECT', 'FUSION_CELLS_INVALID', 'INVALID_NAME'] },
  /** Internal: The failover probe (BusClient, SHARD_PROBE_OP): answered exactly while a replica serves the shard. */
  alive: { request: sml.v1.ProjectRequest, reply: sml.v1.Empty, errors: [], internal: true },
  /** Internal: A project's statistics, for the explore service and another shard (merge). */
  summary: { request: sml.v1.SummaryRequest, reply: sml.v1.SummaryReply, errors: ['PROJECT_NOT_FOUND', 'FUSION_CELL_FAILED'], internal: true },
  /** Internal: Root only: the users service, when a customer is deleted (asked of every shard). */
  purgeCustomer: { request: sml.v1.UserRequest, reply: sml.v1.Empty, errors: ['ROOT_ONLY'], internal: true },
  /** Internal: The streams service, once it deleted a stream: the stream's marks leave the project. */
  dropStreamMarks: { request: sml.v1.DropStreamMarksRequest, reply: sml.v1.Empty, errors: ['PROJECT_NOT_FOUND'], internal: true },
});

/** The operations of the projects service. */
export type ProjectsOp = keyof typeof projects;

/**
 * @sml/stats — pure numerics (STATS.md): the project summary and everything computed from
 * it. No I/O, no dependency on other @sml packages.
 */
export { CapacityError, type CapacityResource, FrameError, SummaryError, type SummaryErrorKind } from './errors';
export { type CategoricalColumn, type ColumnType, type DataFrame, type LearnReport, MAX_REPORTED_ERRORS, type NumericColumn, type ParsedFrame, categoryOf, cellText } from './frame';
export { DEFAULT_EXACT_HISTOGRAM_CAP, DEFAULT_HISTOGRAM_BINS, Histogram, type HistogramBin, type HistogramMode } from './histogram';
export { CLUSTER_DEFAULTS, type ClusterOptions, MAX_CLUSTER_CELLS, MicroClusters, type WeightedPoints, clusterOptionsOf, clusterOptionsProblem } from './models/kmeans/micro-clusters';
export {
  MAX_POWER_ABS, MAX_POWER_STEPS, POWER_DEFAULTS, POWER_PREFIX, POWER_SEPARATOR, PowerColumns, type PowerOptions, powerColumnName, powerGrid, powerOptionsOf,
  powerOptionsProblem, yeoJohnson, yeoJohnsonInverse, yeoJohnsonLogLikelihood,
} from './models/powerreg/power-columns';
export {
  FOREST_DEFAULTS, FOREST_TYPES, type ForestOptions, type ForestTreeView, type ForestType, MAX_FOREST_CELLS, MAX_FOREST_CLASSES, MAX_FOREST_DEPTH, MAX_FOREST_MODEL_NUMBERS,
  MAX_FOREST_TREES, MondrianForest, type OnlineFrame, forestNodeCap, forestOptionsOf, forestOptionsProblem,
} from './models/forest/mondrian';
export { type OnlineOptions, type OnlineState, learnOnline, onlineTransferList } from './online';
export { DEFAULT_MAX_ATTRIBUTES, type ResolvedOptions, type SummaryOptions } from './options';
export { type NgramCount, ROWS_LAYOUT_VARIABLE, SequenceCounts, type SequenceLayout } from './models/sequence/counts';
export {
  type AttributeMoments, type AttributeRef, type ConditionalMoments, type ForeignSummaryChecks, type JsonLearnResult, type LearnInput, type PairMoments, type PreparedChange, type StateLimits, DEFAULT_MAX_NAME_LENGTH,
  SERIALIZATION_CHUNK_BYTES, Summary,
} from './summary';
export { MAX_ABS_VALUE } from './attribute-statistics';
export { parseFrameJson, placeholderRows } from './frame-json';
export { type BadRecord, type FieldRecords, type RecordsFrame, type RecordsPlan, parseRecords } from './frame-records';
export { type FrameColumnsData, type FrameColumnsInput, frameFromColumns, frameToColumns, readFrameColumns } from './frame-columns';
export { type AttributeTable, resolveAttributes } from './attributes';
export { type SerializedChunks } from './binary';
export * from './models';
export * from './matrix';
export * from './survival';
export * from './explore';
export * from './encoder';
export { type GramKernel, gramBlockRows } from './kernels/gram';
export { type KernelChoice, type KernelOptions, type Kernels, kernels, selectKernels } from './kernels/select';

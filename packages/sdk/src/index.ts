/** @sml/sdk — a TypeScript client of the SML REST API (API.md). */
export { httpTransport, retryDelay, SmlClient } from './client';
export { cellText, frameFromCsv, frameFromRecords, predictionRecords, type CellValue, type CsvFrameOptions, type FrameOptions, type PredictionValue, type RecordsFrameOptions } from './frames';
// Operations and the types of every route (its Query, Body, Values) and of the shared schemas.
export * from './operations';
export { AnswerTooLargeError, GatewayUnreachableError, JobTimeoutError, RequestTimeoutError, UnexpectedResponseError } from './errors';
export type {
  CallOptions, CreateProjectOptions, DsColumns, DsInfo, DsListing, DsLogEntry, DsSample, Envelope, HttpAnswer, HttpExchange, JobProgress, RequestOptions,
  RetryEvent, RetryOptions, SmlClientOptions, SmlResponse, StreamListing, Transport, WaitOptions,
} from './types';
// The SDK sends the authenticated v2 format, the default of encryptDsInfo (API.md §2.4).
export { encryptDsInfo, type DsInfoFormat } from '@sml/core';

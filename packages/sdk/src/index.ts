/** @sml/sdk — a TypeScript client of the SML REST API (API.md). */
export { SmlClient } from './client';
export { Operations, type OperationOptions, type OperationSender } from './operations';
export { GatewayUnreachableError, JobTimeoutError, UnexpectedResponseError } from './errors';
export type { CreateProjectOptions, DsColumns, DsInfo, DsListing, DsLogEntry, DsSample, Envelope, JobInfo, MLContext, RequestOptions, RestDataFrame, SmlClientOptions, SmlResponse, StreamListing, WaitOptions } from './types';
// The SDK sends the authenticated v2 format, the default of encryptDsInfo (API.md §2.4).
export { encryptDsInfo, type DsInfoFormat } from '@sml/core';

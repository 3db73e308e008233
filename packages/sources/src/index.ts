export * from './types';
export * from './csv';
export * from './localfile';
export * from './registry';
export { browseS3, s3Failure, s3Source } from './s3';
export { pgFailure, postgresSource, quoteTable } from './postgres';
export { httpSource } from './http';
export * from './csv-records';
export { bareHost, checkAddress, checkLiteral, guardedLookup, isPrivateAddress, refusalText, refusedAddress } from './ssrf';

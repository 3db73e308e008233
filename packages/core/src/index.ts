export * from './errors';
export * from './config';
export * from './logger';
export * from './names';
export * from './json';
export * from './dataframe';
export * from './signing';
export * from './dsinfo';

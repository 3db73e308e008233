export * from './types';
export * from './csv';
export * from './localfile';
export * from './registry';

export * from './ports';
export * from './nats';
export * from './system';
export * from './postgres';
export * from './kafka';
export * from './data';
export * from './s3';
export * from './memory';

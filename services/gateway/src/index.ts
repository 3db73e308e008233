export { createApp, missingServices } from './app';
export { startGateway } from './gateway';
export { openApiDocument } from './openapi';
export { routes } from './routes';
export type { Route, RouteContext } from './route';
export { defineRoute } from './route';

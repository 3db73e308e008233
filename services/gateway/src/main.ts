#!/usr/bin/env node
import { runService } from '@sml/bus';
import { startGateway } from './gateway';

void runService('users', startGateway).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

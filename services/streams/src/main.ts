#!/usr/bin/env node
import { runService } from '@sml/bus';
import { startStreams } from './service';

void runService('streams', startStreams).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

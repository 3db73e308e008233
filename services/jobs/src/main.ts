#!/usr/bin/env node
import { runService } from '@sml/bus';
import { startJobs } from './jobs';

void runService('jobs', startJobs).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

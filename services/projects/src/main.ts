#!/usr/bin/env node
import { runService } from '@sml/bus';
import { startProjects } from './projects';

void runService('projects', startProjects).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

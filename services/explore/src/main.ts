#!/usr/bin/env node
import { runService } from '@sml/bus';
import { startExplore } from './explore';

void runService('explore', startExplore).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

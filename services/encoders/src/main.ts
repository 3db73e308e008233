#!/usr/bin/env node
import { runService } from '@sml/bus';
import { startEncoders } from './service';

void runService('encoders', startEncoders).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

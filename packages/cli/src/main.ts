#!/usr/bin/env node
import { run } from './program';

void run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then((code) => {
  process.exitCode = code;
});

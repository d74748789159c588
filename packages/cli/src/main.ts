#!/usr/bin/env node
/**
 * The `diagnosis` bin (also behind `npm run diagnose|demo|trace|runs|cancel`). It turns on Node's module compile
 * cache before anything else loads — every later start of the bin reads the type-stripped TypeScript and V8's code
 * for its modules from disk instead of compiling them again — then runs the command (run-main.ts).
 * NOTE: the cache lives in this project's `node_modules/.cache`, owned by whoever installed it, not in a shared
 * temporary folder another user could write; `NODE_COMPILE_CACHE` moves it, `NODE_DISABLE_COMPILE_CACHE=1` turns it
 * off. Node checks each entry against the module's source, so a changed file is compiled again; a folder it cannot
 * write leaves the cache off, silently (the command runs the same, only slower to start).
 */
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';

enableCompileCache(
  process.env.NODE_COMPILE_CACHE || join(import.meta.dirname, '../../../node_modules/.cache/diagnosis-compile-cache'),
);
await import('./run-main.ts');

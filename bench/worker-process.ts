import 'reflect-metadata';
import { runWorkerProcess } from '../sample-app/worker-app';
import { BENCH_ENCRYPTION_KEY } from './pipeline-support';

// A worker-only host app for the end-to-end benchmark, run from the compiled output
// (`node dist/bench/worker-process.js`) so that no TypeScript is compiled while it is measured.
runWorkerProcess(BENCH_ENCRYPTION_KEY);

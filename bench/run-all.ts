import { Logger } from '@nestjs/common';
import { runChannelConnectionsBench } from './channel-connections.bench';
import { runEndToEndBench } from './end-to-end.bench';
import { runHttpThroughputBench } from './http-throughput.bench';
import { runIntakeBench } from './intake.bench';
import { runMarkAsBench } from './mark-as.bench';
import { runProvidersBench } from './providers.bench';
import { runAsScript } from './support';

/**
 * `npm run bench`: every benchmark, one after the other (never in parallel: they share two cores).
 * Each measures its own baseline in the same run and writes its figures to bench/results/.
 * Select some by key: `npm run bench -- intake end-to-end` (or `node dist/bench/run-all.js intake`).
 * Run one alone with `node dist/bench/<name>.bench.js` after `tsc -p tsconfig.sample.json`.
 */
const BENCHES: Array<{ key: string; name: string; run: () => Promise<unknown> }> = [
  { key: 'channel-connections', name: 'channel connections (1,000,000 rows)', run: runChannelConnectionsBench },
  { key: 'mark-as', name: 'mark-as (100 ids)', run: runMarkAsBench },
  { key: 'http-throughput', name: 'HTTP throughput (integrations, notification)', run: runHttpThroughputBench },
  { key: 'intake', name: 'trigger intake (100-event requests)', run: runIntakeBench },
  { key: 'end-to-end', name: 'trigger pipeline end to end (10,000 events)', run: runEndToEndBench },
  { key: 'providers', name: 'sends through a provider to a 50 ms vendor (20,000 sends)', run: runProvidersBench },
];

async function main(): Promise<void> {
  const logger = new Logger('bench');
  const selected = process.argv.slice(2);
  const unknown = selected.filter((key) => !BENCHES.some((bench) => bench.key === key));
  if (unknown.length) throw new Error(`unknown benchmark(s) ${unknown.join(', ')}; known: ${BENCHES.map((bench) => bench.key).join(', ')}`);
  for (const { key, name, run } of BENCHES) {
    if (selected.length && !selected.includes(key)) continue;
    logger.log(`running: ${name}`);
    await run();
  }
}

runAsScript(module, new Logger('bench'), main);

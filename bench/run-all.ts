import { Logger } from '@nestjs/common';
import { runChannelConnectionsBench } from './channel-connections.bench';
import { runHttpThroughputBench } from './http-throughput.bench';
import { runMarkAsBench } from './mark-as.bench';
import { runAsScript } from './support';

/**
 * `npm run bench`: every benchmark, one after the other (never in parallel: they share two cores).
 * Each measures its own baseline in the same run and writes its figures to bench/results/.
 * Run one alone with `node dist/bench/<name>.bench.js` after `tsc -p tsconfig.sample.json`.
 */
async function main(): Promise<void> {
  const logger = new Logger('bench');
  const benches: Array<[string, () => Promise<unknown>]> = [
    ['channel connections (1,000,000 rows)', runChannelConnectionsBench],
    ['mark-as (100 ids)', runMarkAsBench],
    ['HTTP throughput (integrations, notification)', runHttpThroughputBench],
  ];
  for (const [name, run] of benches) {
    logger.log(`running: ${name}`);
    await run();
  }
}

runAsScript(module, new Logger('bench'), main);

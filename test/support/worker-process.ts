import { runWorkerProcess } from '../../sample-app/worker-app';
import { TEST_ENCRYPTION_KEY } from '../fixtures/app';

// A worker-only host app as a separate OS process, for test/e2e/worker-processes.e2e-spec.ts:
// `node -r test/support/register-ts.js test/support/worker-process.ts` (see sample-app/worker-app.ts).
runWorkerProcess(TEST_ENCRYPTION_KEY);

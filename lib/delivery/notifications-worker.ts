import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectNotificationsOptions } from '../notifications.constants';
import type { ResolvedNotificationsOptions } from '../notifications.options';
import { NotificationsQueue, workerLoops } from './notifications-queue';
import { StepRunner } from './step-runner';

/**
 * The in-process delivery worker: polling loops ({@link workerLoops}) that hand due queue entries to
 * the {@link StepRunner}, a batch at a time. Disabled with `worker.enabled: false` (API-only
 * instances); any number of instances may run it against one database.
 * @publicApi
 */
@Injectable()
export class NotificationsWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger(NotificationsWorker.name);

  constructor(
    private readonly queue: NotificationsQueue,
    private readonly runner: StepRunner,
    @InjectNotificationsOptions() private readonly options: ResolvedNotificationsOptions,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { enabled } = this.options.worker;
    if (!enabled) return;
    const { loops, batchSize } = workerLoops(this.options.worker);
    for (let i = 0; i < loops; i++) {
      await this.queue.work(async (jobs) => {
        await this.runner.run(jobs.map((job) => job.data));
        // A full batch means more is probably due: poll again at once instead of after the interval.
        if (jobs.length >= batchSize) this.queue.wakeWorkers();
      });
    }
    this.logger.log(`Delivery worker started: ${loops} loop(s) of up to ${batchSize} job(s), ${this.options.worker.concurrency} send(s) at once`);
  }
}


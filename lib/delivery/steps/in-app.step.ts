import { Injectable } from '@nestjs/common';
import { IN_HOUSE_PROVIDER_ID } from '../../common/enums';
import { generateId } from '../../common/id';
import { DETAILS, line } from '../execution-log';
import type { RunJob, StepHandler, StepOutcome } from '../run-context';
import { type RenderedMessage, renderMessage } from '../template-context';
import { TemplateRenderer } from '../template-renderer';

/**
 * `in_app`: the module delivers these itself, as a message row in the subscriber's feed. Nothing leaves
 * the database, so the message is written in the same transaction as the job's outcome: a redelivered
 * job finds its job completed and its message present, never a second one (DESIGN §8).
 */
@Injectable()
export class InAppStep implements StepHandler {
  readonly types = ['in_app'] as const;

  constructor(private readonly renderer: TemplateRenderer) {}

  async run(jobs: RunJob[]): Promise<StepOutcome[]> {
    return jobs.map((run) => this.deliver(run));
  }

  private deliver(run: RunJob): StepOutcome {
    const template = run.step.template ?? {};
    let rendered: RenderedMessage;
    try {
      rendered = renderMessage(this.renderer, template, run);
    } catch (error) {
      return {
        status: 'failed',
        details: [line.pending(DETAILS.startSending), line.failed(DETAILS.contentNotGenerated, { raw: { error: (error as Error).message } })],
        error: { message: (error as Error).message },
      };
    }
    const messageId = generateId();
    const providerId = IN_HOUSE_PROVIDER_ID;
    return {
      status: 'completed',
      providerId,
      message: {
        id: messageId,
        channel: 'in_app',
        providerId,
        subject: rendered.subject ?? null,
        title: rendered.title ?? null,
        content: rendered.content,
        cta: template.cta ? { ...template.cta, type: template.cta.type ?? 'redirect', data: { ...template.cta.data, url: rendered.url } } : {},
        email: null,
        phone: null,
        directWebhookUrl: null,
        deviceTokens: null,
        status: 'sent',
        errorId: null,
        errorText: null,
        providerMessageId: null,
      },
      details: [
        line.pending(DETAILS.startSending),
        line.pending(DETAILS.messageCreated, { providerId, messageId, raw: { messageId } }),
        line.success(DETAILS.messageSent, { providerId, messageId }),
      ],
    };
  }
}

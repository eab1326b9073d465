import { Injectable } from '@nestjs/common';
import { DETAILS, line } from '../execution-log';
import type { RunJob, StepHandler, StepOutcome } from '../run-context';
import { templateContext } from '../template-context';
import { TemplateRenderer } from '../template-renderer';

const DEFAULT_TIMEOUT_MS = 10_000;
/** Response bodies are kept in the execution log up to this size. */
const MAX_BODY = 4_096;

/**
 * `http_request`: calls a URL with the step's method, headers and body (all Liquid templates) and
 * records the answer. A 4xx/5xx answer, a network error or a timeout fails the step.
 */
@Injectable()
export class HttpRequestStep implements StepHandler {
  readonly types = ['http_request'] as const;

  constructor(private readonly renderer: TemplateRenderer) {}

  async run(jobs: RunJob[]): Promise<StepOutcome[]> {
    return Promise.all(jobs.map((run) => this.call(run)));
  }

  private async call(run: RunJob): Promise<StepOutcome> {
    const started = line.pending(DETAILS.startSending);
    const fail = (raw: Record<string, unknown>): StepOutcome => ({
      status: 'failed',
      details: [started, line.failed(DETAILS.httpRequestFailed, { raw })],
      error: { message: String(raw.error ?? `HTTP ${String(raw.status)}`), raw },
    });
    const request = run.step.request;
    if (!request?.url) return fail({ error: 'the step has no request.url' });
    let url: string;
    let headers: Record<string, string>;
    let body: string | undefined;
    try {
      const context = templateContext(run);
      url = this.renderer.render(request.url, context) ?? '';
      headers = this.renderer.renderObject(request.headers ?? {}, context) as Record<string, string>;
      body = this.renderer.render(request.body, context);
      new URL(url);
    } catch (error) {
      return fail({ error: (error as Error).message });
    }
    const method = (request.method ?? 'POST').toUpperCase();
    try {
      const response = await fetch(url, {
        method,
        headers: { 'content-type': 'application/json', 'idempotency-key': run.job.id, ...headers },
        ...(body !== undefined && method !== 'GET' && { body }),
        signal: AbortSignal.timeout(request.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
      const text = await response.text();
      const raw = { method, url, status: response.status, body: parseBody(text) };
      if (!response.ok) return fail(raw);
      return { status: 'completed', details: [started, line.success(DETAILS.httpRequestCompleted, { raw })] };
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      return fail({ method, url, error: timedOut ? `timed out after ${request.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms` : (error as Error).message });
    }
  }
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text.length > MAX_BODY ? `${text.slice(0, MAX_BODY)}…` : text;
  }
}

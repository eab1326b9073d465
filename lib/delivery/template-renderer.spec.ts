import { Test } from '@nestjs/testing';
import { Liquid } from 'liquidjs';
import { TEMPLATE_LIMITS, TemplateRenderError, TemplateRenderer, type TemplateContext } from './template-renderer';

const context: TemplateContext = {
  subscriber: { subscriberId: 'sub-1', firstName: 'Ann', data: { plan: 'pro' } },
  payload: { order: { id: 'o-17', total: 12.5, items: ['a', 'b'] }, html: '<b>Tom & Jerry</b>', sentAt: '2024-05-15T23:30:00Z' },
  tenant: { identifier: 'acme', name: 'Acme' },
  actor: { firstName: 'Bob' },
  context: { locale: 'de' },
  step: { digest: true, events: [{ payload: { name: 'x' } }, { payload: { name: 'y' } }], total_count: 2 },
};

function renderError(run: () => unknown): TemplateRenderError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateRenderError);
    return error as TemplateRenderError;
  }
  throw new Error('expected a TemplateRenderError');
}

describe('TemplateRenderer', () => {
  let renderer: TemplateRenderer;

  beforeEach(() => {
    renderer = new TemplateRenderer();
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  describe('render', () => {
    it('reads subscriber, payload, tenant, actor, context and step fields', () => {
      expect(renderer.render('Hi {{ subscriber.firstName }} ({{ subscriber.data.plan }})', context)).toBe('Hi Ann (pro)');
      expect(renderer.render('Order {{ payload.order.id }}: {{ payload.order.total }}', context)).toBe('Order o-17: 12.5');
      expect(renderer.render('{{ tenant.name }}/{{ actor.firstName }}/{{ context.locale }}', context)).toBe('Acme/Bob/de');
      expect(renderer.render('{{ step.events | size }} events, {{ step.total_count }} total, digest {{ step.digest }}', context)).toBe(
        '2 events, 2 total, digest true',
      );
      expect(renderer.render('{% for e in step.events %}[{{ e.payload.name }}]{% endfor %}', context)).toBe('[x][y]');
      expect(renderer.render('{{ payload.order.items | join: ", " }} / {{ payload.order.items.first }}', context)).toBe('a, b / a');
    });

    it('supports tags and standard filters', () => {
      expect(renderer.render('{% if subscriber.data.plan == "pro" %}PRO{% else %}FREE{% endif %}', context)).toBe('PRO');
      expect(renderer.render('{{ subscriber.firstName | upcase | append: "!" }}', context)).toBe('ANN!');
      expect(renderer.render('{{ payload.missing | default: "none" }}', context)).toBe('none');
      expect(renderer.render('{% assign n = step.events | size %}{{ n | plus: 1 }}', context)).toBe('3');
    });

    it('renders missing variables and missing sections as empty', () => {
      expect(renderer.render('[{{ payload.nope.deeper }}][{{ unknown }}]', context)).toBe('[][]');
      expect(renderer.render('[{{ tenant.name }}][{{ step.total_count }}]', { subscriber: {}, payload: {} })).toBe('[][]');
      expect(renderer.render('[{{ tenant.name }}]', { subscriber: {}, payload: {}, tenant: null })).toBe('[]');
    });

    it('does not escape output', () => {
      expect(renderer.render('{{ payload.html }}', context)).toBe('<b>Tom & Jerry</b>');
    });

    it('formats dates in UTC whatever the worker time zone', () => {
      expect(renderer.render("{{ payload.sentAt | date: '%Y-%m-%d %H:%M' }}", context)).toBe('2024-05-15 23:30');
    });

    it('keeps undefined and plain text as they are', () => {
      expect(renderer.render(undefined, context)).toBeUndefined();
      expect(renderer.render(null as unknown as string, context)).toBeUndefined();
      expect(renderer.render('', context)).toBe('');
      expect(renderer.render('Plain text, 100% no markup', context)).toBe('Plain text, 100% no markup');
      expect(renderer.cacheSize).toBe(0);
    });

    it('hides prototype members', () => {
      expect(renderer.render('[{{ subscriber.constructor }}][{{ payload.__proto__ }}][{{ payload.order.toString }}]', context)).toBe('[][][]');
    });

    it('does not change the context', () => {
      const own: TemplateContext = { subscriber: { firstName: 'Ann' }, payload: {} };
      renderer.render('{% assign subscriber = "x" %}{% assign payload = 1 %}{{ subscriber }}', own);
      expect(own).toEqual({ subscriber: { firstName: 'Ann' }, payload: {} });
    });
  });

  describe('errors', () => {
    it('an unknown filter is a parse error', () => {
      const error = renderError(() => renderer.render('Hi {{ subscriber.firstName | shout }}', context));
      expect(error.message).toBe('Template could not be parsed: undefined filter: shout, line:1, col:4');
      expect(error.phase).toBe('parse');
      expect(error.name).toBe('TemplateRenderError');
      expect(error.cause).toBeInstanceOf(Error);
    });

    it.each([
      ['an unclosed tag', '{% if subscriber.firstName %}hi', /^Template could not be parsed: tag \{% if subscriber.firstName %\} not closed/],
      ['an unclosed output', 'Hi {{ subscriber.firstName', /^Template could not be parsed: output "\{\{ subscriber.firstName" not closed/],
      ['an unknown tag', '{% shout %}', /^Template could not be parsed: tag "shout" not found/],
      ['a stray end tag', '{% endif %}', /^Template could not be parsed: /],
    ])('%s is a parse error', (_, template, message) => {
      const error = renderError(() => renderer.render(template, context));
      expect(error.message).toMatch(message);
      expect(error.phase).toBe('parse');
    });

    it('messages are one line without a stack', () => {
      const error = renderError(() => renderer.render('line one\n{{ x | nope }}\nline three', context));
      expect(error.message).toBe('Template could not be parsed: undefined filter: nope, line:2, col:1');
    });

    it('include, render and layout never read files', () => {
      for (const tag of ["{% include 'package.json' %}", "{% render 'package.json' %}", "{% layout 'package.json' %}x"]) {
        const error = renderError(() => renderer.render(tag, context));
        expect(error.phase).toBe('render');
        expect(error.message).toMatch(/^Template could not be rendered: ENOENT: Failed to lookup "package.json"/);
      }
    });

    it('errors are not cached as templates', () => {
      renderError(() => renderer.render('{{ x | nope }}', context));
      expect(renderer.cacheSize).toBe(0);
    });
  });

  describe('limits', () => {
    it('stops templates that allocate too much memory', () => {
      const error = renderError(() => renderer.render('{% for i in (1..100000000) %}x{% endfor %}', context));
      expect(error.message).toMatch(/^Template could not be rendered: memory alloc limit exceeded/);
      expect(error.phase).toBe('render');
      const doubling = `{% assign s = "xxxxxxxxxx" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}`;
      expect(renderError(() => renderer.render(doubling, context)).message).toMatch(/memory alloc limit exceeded/);
    });

    it('stops templates that render too long', () => {
      const started = Date.now();
      const error = renderError(() =>
        renderer.render('{% for i in (1..100000) %}{% for j in (1..100000) %}{{ j }}{% endfor %}{% endfor %}', context),
      );
      expect(error.message).toMatch(/^Template could not be rendered: template render limit exceeded/);
      expect(Date.now() - started).toBeLessThan(TEMPLATE_LIMITS.renderLimit * 4);
    });

    it('refuses templates longer than the parse limit', () => {
      const error = renderError(() => renderer.render(`{{ x }}${'y'.repeat(TEMPLATE_LIMITS.parseLimit)}`, context));
      expect(error.message).toBe('Template could not be parsed: parse length limit exceeded');
    });

    it('limits apply per render, not per renderer', () => {
      // Each render uses 80% of the memory limit; together they use several times the limit.
      const big = 'x'.repeat(TEMPLATE_LIMITS.memoryLimit * 0.4);
      const doubled = '{{ payload.big | append: payload.big | size }}';
      for (let i = 0; i < 5; i++) expect(renderer.render(doubled, { subscriber: {}, payload: { big } })).toBe(String(big.length * 2));
      // Each render takes a fraction of the time limit; together they take longer than it.
      const slow = '{% for i in (1..30000) %}{% endfor %}ok';
      const started = Date.now();
      while (Date.now() - started < TEMPLATE_LIMITS.renderLimit * 1.5) expect(renderer.render(slow, context)).toBe('ok');
    });
  });

  describe('cache', () => {
    it('parses each distinct template once', () => {
      const parse = jest.spyOn(Liquid.prototype, 'parse');
      renderer.render('Hi {{ subscriber.firstName }}', context);
      renderer.render('Hi {{ subscriber.firstName }}', { ...context, subscriber: { firstName: 'Zoe' } });
      expect(renderer.render('Hi {{ subscriber.firstName }}', { subscriber: { firstName: 'Max' }, payload: {} })).toBe('Hi Max');
      expect(parse).toHaveBeenCalledTimes(1);
      expect(renderer.cacheSize).toBe(1);
    });

    it('keeps at most 1000 templates, evicting the least recently used', () => {
      const parse = jest.spyOn(Liquid.prototype, 'parse');
      for (let i = 0; i < 1000; i++) renderer.render(`{{ payload.n }}-${i}`, context);
      renderer.render('{{ payload.n }}-0', context);
      renderer.render('{{ payload.n }}-1000', context);
      expect(renderer.cacheSize).toBe(1000);
      expect(parse).toHaveBeenCalledTimes(1001);
      renderer.render('{{ payload.n }}-0', context);
      expect(parse).toHaveBeenCalledTimes(1001);
      renderer.render('{{ payload.n }}-1', context);
      expect(parse).toHaveBeenCalledTimes(1002);
    });

    it('evicts by total size too', () => {
      const big = 'y'.repeat(900_000);
      for (let i = 0; i < 10; i++) renderer.render(`{{ payload.n }}${i}${big}`, context);
      expect(renderer.cacheSize).toBe(5);
    });
  });

  describe('renderObject', () => {
    it('renders every string of a JSON-like value and keeps the rest', () => {
      const input = {
        'X-Order': '{{ payload.order.id }}',
        '{{ not.a.key }}': 'kept key',
        nested: { list: ['{{ subscriber.firstName }}', 3, true, null, { deep: '{{ step.total_count }}' }] },
        count: 2,
        flag: false,
        none: null,
      };
      const output = renderer.renderObject(input, context);
      expect(output).toEqual({
        'X-Order': 'o-17',
        '{{ not.a.key }}': 'kept key',
        nested: { list: ['Ann', 3, true, null, { deep: '2' }] },
        count: 2,
        flag: false,
        none: null,
      });
      expect(input['X-Order']).toBe('{{ payload.order.id }}');
      expect(renderer.renderObject('{{ actor.firstName }}', context)).toBe('Bob');
      expect(renderer.renderObject(undefined, context)).toBeUndefined();
    });

    it('keeps a "__proto__" key as a key', () => {
      const input = JSON.parse('{"__proto__": {"polluted": "{{ subscriber.firstName }}"}}') as Record<string, unknown>;
      const output = renderer.renderObject(input, context);
      expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
      expect(Object.hasOwn(output, '__proto__')).toBe(true);
      expect(output['__proto__']).toEqual({ polluted: 'Ann' });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('throws the first template error', () => {
      expect(renderError(() => renderer.renderObject({ ok: 'x', bad: ['{{ x | nope }}'] }, context)).message).toBe(
        'Template could not be parsed: undefined filter: nope, line:1, col:1',
      );
    });
  });

  it('is a Nest provider', async () => {
    const module = await Test.createTestingModule({ providers: [TemplateRenderer] }).compile();
    expect(module.get(TemplateRenderer).render('{{ subscriber.firstName }}', context)).toBe('Ann');
    await module.close();
  });
});

import type { FILTER_OPERATORS } from '../common/enums';
import type { FieldFilterPart, StepFilter } from '../common/step-filter';
import {
  evaluateCondition,
  explainFilters,
  matchesFilters,
  parseIsoDate,
  parseList,
  readPath,
  type FilterData,
} from './step-conditions';

type Operator = (typeof FILTER_OPERATORS)[number];

const data: FilterData = {
  subscriber: {
    subscriberId: 'sub-1',
    firstName: 'Ann',
    email: 'Ann.Smith@Example.com',
    data: { plan: 'pro', seats: 5, beta: true, tags: ['vip', 'early', 3], nothing: null },
  },
  payload: {
    order: { id: 'o-17', total: 120.5, items: [{ sku: 'A1' }, { sku: 'B2' }], placedAt: '2024-05-01T10:00:00Z' },
    count: '42',
    zip: '01234',
    flag: false,
    when: '2024-05-01',
    'dotted.key': 'literal',
    note: 'Hello World_100%',
  },
};

function payload(field: string, operator: Operator, value: string): FieldFilterPart {
  return { on: 'payload', field, operator, value };
}

function subscriber(field: string, operator: Operator, value: string): FieldFilterPart {
  return { on: 'subscriber', field, operator, value };
}

function check(part: FieldFilterPart): boolean {
  return evaluateCondition(part, data).passed;
}

function group(children: FieldFilterPart[], value: 'AND' | 'OR' = 'AND', isNegated = false): StepFilter {
  return { isNegated, type: 'GROUP', value, children };
}

describe('step conditions', () => {
  describe('readPath', () => {
    it('reads nested fields, array indexes in both notations and literal dotted keys', () => {
      expect(readPath(data.payload, 'order.id')).toBe('o-17');
      expect(readPath(data.payload, 'order.items[1].sku')).toBe('B2');
      expect(readPath(data.payload, 'order.items.0.sku')).toBe('A1');
      expect(readPath(data.payload, 'order.items.length')).toBe(2);
      expect(readPath(data.payload, 'dotted.key')).toBe('literal');
      expect(readPath(data.subscriber, 'data.plan')).toBe('pro');
    });

    it('returns undefined for missing segments, non-objects and prototype members', () => {
      expect(readPath(data.payload, 'order.missing.deep')).toBeUndefined();
      expect(readPath(data.payload, 'count.length')).toBeUndefined();
      expect(readPath(data.payload, 'constructor')).toBeUndefined();
      expect(readPath(data.payload, '__proto__')).toBeUndefined();
      expect(readPath(data.payload, 'order.toString')).toBeUndefined();
      expect(readPath(null, 'a')).toBeUndefined();
      expect(readPath(data.payload, '')).toBeUndefined();
    });
  });

  describe('parseList', () => {
    it('splits comma lists, trimming items and dropping empty ones', () => {
      expect(parseList('a, b ,c,,')).toEqual(['a', 'b', 'c']);
      expect(parseList('')).toEqual([]);
      expect(parseList('single')).toEqual(['single']);
    });

    it('reads JSON arrays, with items as text', () => {
      expect(parseList('["a,b", "c"]')).toEqual(['a,b', 'c']);
      expect(parseList('[1, true, null, "x"]')).toEqual(['1', 'true', '', 'x']);
      expect(parseList('[draft], sent')).toEqual(['[draft]', 'sent']);
    });
  });

  describe('parseIsoDate', () => {
    it('reads dates, date-times and offsets; no offset means UTC', () => {
      expect(parseIsoDate('2024-05-01')?.toISOString()).toBe('2024-05-01T00:00:00.000Z');
      expect(parseIsoDate('2024-05-01T10:00')?.toISOString()).toBe('2024-05-01T10:00:00.000Z');
      expect(parseIsoDate('2024-05-01T10:00:05.123456Z')?.toISOString()).toBe('2024-05-01T10:00:05.123Z');
      expect(parseIsoDate('2024-05-01T10:00:00+02:00')?.toISOString()).toBe('2024-05-01T08:00:00.000Z');
      expect(parseIsoDate('2024-05-01T10:00:00-0530')?.toISOString()).toBe('2024-05-01T15:30:00.000Z');
      expect(parseIsoDate('2024-02-29')?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
      expect(parseIsoDate('0099-01-01')?.getUTCFullYear()).toBe(99);
    });

    it('rejects non-ISO text and impossible dates', () => {
      for (const value of ['1', 'May 1 2024', '2023-02-29', '2024-13-01', '2024-04-31', '2024-05-01T24:00', '2024-05-01T10:60', '2024-05-01+02:00', '', 42, null]) {
        expect(parseIsoDate(value)).toBeUndefined();
      }
      expect(parseIsoDate(new Date('invalid'))).toBeUndefined();
    });
  });

  describe('EQUAL / NOT_EQUAL', () => {
    it('compares numerically when both sides are numeric', () => {
      expect(check(payload('order.total', 'EQUAL', '120.50'))).toBe(true);
      expect(check(payload('count', 'EQUAL', '42.0'))).toBe(true);
      expect(check(payload('zip', 'EQUAL', '1234'))).toBe(true);
      expect(check(subscriber('data.seats', 'EQUAL', '6'))).toBe(false);
      expect(check(subscriber('data.seats', 'NOT_EQUAL', '6'))).toBe(true);
      expect(check(subscriber('data.seats', 'NOT_EQUAL', '5'))).toBe(false);
    });

    it('compares text case-sensitively otherwise', () => {
      expect(check(subscriber('data.plan', 'EQUAL', 'pro'))).toBe(true);
      expect(check(subscriber('data.plan', 'EQUAL', 'Pro'))).toBe(false);
      expect(check(subscriber('data.plan', 'NOT_EQUAL', 'Pro'))).toBe(true);
      expect(check(payload('order.id', 'EQUAL', 'o-17'))).toBe(true);
    });

    it('compares booleans as "true" / "false"', () => {
      expect(check(subscriber('data.beta', 'EQUAL', 'true'))).toBe(true);
      expect(check(subscriber('data.beta', 'EQUAL', 'false'))).toBe(false);
      expect(check(payload('flag', 'EQUAL', 'false'))).toBe(true);
      expect(check(payload('flag', 'NOT_EQUAL', 'true'))).toBe(true);
    });

    it('treats a missing or null field as ""', () => {
      expect(check(payload('missing', 'EQUAL', ''))).toBe(true);
      expect(check(subscriber('data.nothing', 'EQUAL', ''))).toBe(true);
      expect(check(payload('missing', 'EQUAL', 'x'))).toBe(false);
      expect(check(payload('missing', 'NOT_EQUAL', 'x'))).toBe(true);
      expect(check(payload('missing', 'NOT_EQUAL', ''))).toBe(false);
    });

    it('compares arrays and objects as JSON', () => {
      expect(check(subscriber('data.tags', 'EQUAL', '["vip","early",3]'))).toBe(true);
      expect(check(payload('order.items.0', 'EQUAL', '{"sku":"A1"}'))).toBe(true);
    });
  });

  describe('LARGER / SMALLER / LARGER_EQUAL / SMALLER_EQUAL', () => {
    it.each<[string, Operator, string, boolean]>([
      ['order.total', 'LARGER', '100', true],
      ['order.total', 'LARGER', '120.5', false],
      ['order.total', 'LARGER', '200', false],
      ['order.total', 'SMALLER', '200', true],
      ['order.total', 'SMALLER', '120.5', false],
      ['order.total', 'SMALLER', '100', false],
      ['order.total', 'LARGER_EQUAL', '120.5', true],
      ['order.total', 'LARGER_EQUAL', '121', false],
      ['order.total', 'SMALLER_EQUAL', '120.5', true],
      ['order.total', 'SMALLER_EQUAL', '120', false],
      ['count', 'LARGER', '9', true],
      ['count', 'SMALLER', '100', true],
    ])('%s %s %s → %s (numeric, also for numeric strings)', (field, operator, value, expected) => {
      expect(check(payload(field, operator, value))).toBe(expected);
    });

    it('compares ISO dates when both sides are dates', () => {
      expect(check(payload('order.placedAt', 'LARGER', '2024-04-30T23:59:59Z'))).toBe(true);
      expect(check(payload('order.placedAt', 'LARGER', '2024-05-01T12:00:00+02:00'))).toBe(false);
      expect(check(payload('order.placedAt', 'LARGER_EQUAL', '2024-05-01T12:00:00+02:00'))).toBe(true);
      expect(check(payload('order.placedAt', 'SMALLER', '2024-06-01'))).toBe(true);
      expect(check(payload('order.placedAt', 'SMALLER_EQUAL', '2024-05-01'))).toBe(false);
      expect(check(payload('when', 'SMALLER_EQUAL', '2024-05-01T00:00:00Z'))).toBe(true);
    });

    it('is false for text, missing fields and mixed numbers and dates', () => {
      for (const operator of ['LARGER', 'SMALLER', 'LARGER_EQUAL', 'SMALLER_EQUAL'] as const) {
        expect(check(subscriber('data.plan', operator, 'a'))).toBe(false);
        expect(check(payload('missing', operator, '0'))).toBe(false);
        expect(check(payload('order.total', operator, '2024-01-01'))).toBe(false);
        expect(check(subscriber('data.beta', operator, '0'))).toBe(false);
      }
      expect(evaluateCondition(payload('missing', 'LARGER', '0'), data).note).toBe('values are not comparable numbers or dates');
    });
  });

  describe('IN / NOT_IN', () => {
    it('passes when the field equals a listed item (comma list or JSON array)', () => {
      expect(check(subscriber('data.plan', 'IN', 'free, pro'))).toBe(true);
      expect(check(subscriber('data.plan', 'IN', '["pro","team"]'))).toBe(true);
      expect(check(subscriber('data.plan', 'IN', 'free,team'))).toBe(false);
      expect(check(subscriber('data.seats', 'IN', '1,5,10'))).toBe(true);
      expect(check(subscriber('data.seats', 'IN', '[5]'))).toBe(true);
      expect(check(subscriber('data.beta', 'IN', 'true,false'))).toBe(true);
    });

    it('NOT_IN is the opposite', () => {
      expect(check(subscriber('data.plan', 'NOT_IN', 'free,team'))).toBe(true);
      expect(check(subscriber('data.plan', 'NOT_IN', 'free,pro'))).toBe(false);
    });

    it('an array field passes when any element is listed', () => {
      expect(check(subscriber('data.tags', 'IN', 'vip'))).toBe(true);
      expect(check(subscriber('data.tags', 'IN', 'new,3'))).toBe(true);
      expect(check(subscriber('data.tags', 'IN', 'new,old'))).toBe(false);
      expect(check(subscriber('data.tags', 'NOT_IN', 'new,old'))).toBe(true);
    });

    it('a missing field is in no list', () => {
      expect(check(payload('missing', 'IN', 'a,b'))).toBe(false);
      expect(check(payload('missing', 'NOT_IN', 'a,b'))).toBe(true);
      expect(check(payload('missing', 'IN', ''))).toBe(false);
    });
  });

  describe('ANY_IN / ALL_IN', () => {
    it('ANY_IN passes when one listed item is in the array', () => {
      expect(check(subscriber('data.tags', 'ANY_IN', 'new,early'))).toBe(true);
      expect(check(subscriber('data.tags', 'ANY_IN', '["3"]'))).toBe(true);
      expect(check(subscriber('data.tags', 'ANY_IN', 'new,old'))).toBe(false);
      expect(check(subscriber('data.tags', 'ANY_IN', ''))).toBe(false);
    });

    it('ALL_IN passes when every listed item is in the array', () => {
      expect(check(subscriber('data.tags', 'ALL_IN', 'vip,early'))).toBe(true);
      expect(check(subscriber('data.tags', 'ALL_IN', 'vip, early, 3'))).toBe(true);
      expect(check(subscriber('data.tags', 'ALL_IN', 'vip,new'))).toBe(false);
      expect(check(subscriber('data.tags', 'ALL_IN', ''))).toBe(true);
    });

    it('treats a scalar as a one-element array and a missing field as empty', () => {
      expect(check(subscriber('data.plan', 'ANY_IN', 'pro,free'))).toBe(true);
      expect(check(subscriber('data.plan', 'ALL_IN', 'pro'))).toBe(true);
      expect(check(subscriber('data.plan', 'ALL_IN', 'pro,free'))).toBe(false);
      expect(check(payload('missing', 'ANY_IN', 'a'))).toBe(false);
      expect(check(payload('missing', 'ALL_IN', 'a'))).toBe(false);
    });
  });

  describe('BETWEEN / NOT_BETWEEN', () => {
    it('is inclusive on both ends for numbers', () => {
      expect(check(subscriber('data.seats', 'BETWEEN', '1,10'))).toBe(true);
      expect(check(subscriber('data.seats', 'BETWEEN', '5,5'))).toBe(true);
      expect(check(subscriber('data.seats', 'BETWEEN', '[5, 9]'))).toBe(true);
      expect(check(subscriber('data.seats', 'BETWEEN', '6,10'))).toBe(false);
      expect(check(subscriber('data.seats', 'BETWEEN', '10,1'))).toBe(false);
      expect(check(subscriber('data.seats', 'NOT_BETWEEN', '6,10'))).toBe(true);
      expect(check(subscriber('data.seats', 'NOT_BETWEEN', '1,5'))).toBe(false);
    });

    it('works on ISO dates', () => {
      expect(check(payload('order.placedAt', 'BETWEEN', '2024-05-01,2024-05-31'))).toBe(true);
      expect(check(payload('order.placedAt', 'BETWEEN', '2024-05-01T10:00:00Z,2024-05-01T10:00:00Z'))).toBe(true);
      expect(check(payload('order.placedAt', 'BETWEEN', '2024-06-01,2024-06-30'))).toBe(false);
      expect(check(payload('order.placedAt', 'NOT_BETWEEN', '2024-06-01,2024-06-30'))).toBe(true);
    });

    it('fails both ways when values cannot be compared or the range is malformed', () => {
      for (const operator of ['BETWEEN', 'NOT_BETWEEN'] as const) {
        expect(check(payload('missing', operator, '1,10'))).toBe(false);
        expect(check(subscriber('data.plan', operator, 'a,z'))).toBe(false);
        expect(check(subscriber('data.seats', operator, '1'))).toBe(false);
        expect(check(subscriber('data.seats', operator, '1,2,3'))).toBe(false);
      }
      expect(evaluateCondition(subscriber('data.seats', 'BETWEEN', '1'), data).note).toBe('value must be a "min,max" pair');
    });
  });

  describe('LIKE / NOT_LIKE', () => {
    it('is a case-insensitive substring match without wildcards', () => {
      expect(check(subscriber('email', 'LIKE', 'example.COM'))).toBe(true);
      expect(check(subscriber('email', 'LIKE', 'smith@'))).toBe(true);
      expect(check(subscriber('email', 'LIKE', 'gmail'))).toBe(false);
      expect(check(subscriber('email', 'NOT_LIKE', 'gmail'))).toBe(true);
      expect(check(subscriber('email', 'NOT_LIKE', 'SMITH'))).toBe(false);
    });

    it('anchors the pattern when it has % wildcards', () => {
      expect(check(subscriber('email', 'LIKE', 'ann%'))).toBe(true);
      expect(check(subscriber('email', 'LIKE', 'smith%'))).toBe(false);
      expect(check(subscriber('email', 'LIKE', '%.com'))).toBe(true);
      expect(check(subscriber('email', 'LIKE', '%.org'))).toBe(false);
      expect(check(subscriber('email', 'LIKE', 'ann%@%.com'))).toBe(true);
      expect(check(subscriber('email', 'LIKE', 'ann%example%smith%'))).toBe(false);
      expect(check(subscriber('email', 'LIKE', '%'))).toBe(true);
      expect(check(subscriber('email', 'LIKE', 'ann.smith@example.com%'))).toBe(true);
      expect(check(subscriber('email', 'NOT_LIKE', '%.org'))).toBe(true);
    });

    it('does not let prefix and suffix overlap, keeps _ literal and has no escape character', () => {
      expect(check(payload('order.id', 'LIKE', 'o-1%-17'))).toBe(false);
      expect(check(payload('order.id', 'LIKE', 'o-%17'))).toBe(true);
      expect(check(payload('note', 'LIKE', '%world_100\\%'))).toBe(false);
      expect(check(payload('note', 'LIKE', '%world_1%'))).toBe(true);
      expect(check(payload('note', 'LIKE', '%world-1%'))).toBe(false);
    });

    it('matches numbers as text, array elements, and a missing field as ""', () => {
      expect(check(payload('order.total', 'LIKE', '120'))).toBe(true);
      expect(check(subscriber('data.tags', 'LIKE', 'ear%'))).toBe(true);
      expect(check(subscriber('data.tags', 'NOT_LIKE', 'ear%'))).toBe(false);
      expect(check(payload('missing', 'LIKE', 'a'))).toBe(false);
      expect(check(payload('missing', 'NOT_LIKE', 'a'))).toBe(true);
    });

    it('stays fast on patterns that would make a regex backtrack', () => {
      const long = { subscriber: {}, payload: { text: 'a'.repeat(50_000) } };
      const started = Date.now();
      expect(evaluateCondition(payload('text', 'LIKE', `${'%a'.repeat(30)}%b`), long).passed).toBe(false);
      expect(Date.now() - started).toBeLessThan(500);
    });
  });

  describe('unknown operators and sources', () => {
    it('fails the condition with a note', () => {
      const unknownOperator = { ...payload('count', 'EQUAL', '42'), operator: 'IS_DEFINED' } as unknown as FieldFilterPart;
      expect(evaluateCondition(unknownOperator, data)).toMatchObject({ passed: false, note: 'unknown operator "IS_DEFINED"' });
      const unknownSource = { ...payload('count', 'EQUAL', '42'), on: 'tenant' } as unknown as FieldFilterPart;
      expect(evaluateCondition(unknownSource, data)).toMatchObject({ passed: false, note: 'unknown source "tenant"' });
    });
  });

  describe('groups', () => {
    const yes = subscriber('data.plan', 'EQUAL', 'pro');
    const no = subscriber('data.plan', 'EQUAL', 'free');

    it('passes with no filters or empty groups', () => {
      expect(matchesFilters(undefined, data)).toBe(true);
      expect(matchesFilters([], data)).toBe(true);
      expect(matchesFilters([group([])], data)).toBe(true);
      expect(matchesFilters([group([], 'AND', true)], data)).toBe(true);
    });

    it('AND needs every child, OR any child', () => {
      expect(matchesFilters([group([yes, yes])], data)).toBe(true);
      expect(matchesFilters([group([yes, no])], data)).toBe(false);
      expect(matchesFilters([group([yes, no], 'OR')], data)).toBe(true);
      expect(matchesFilters([group([no, no], 'OR')], data)).toBe(false);
    });

    it('isNegated negates the group', () => {
      expect(matchesFilters([group([yes], 'AND', true)], data)).toBe(false);
      expect(matchesFilters([group([yes, no], 'AND', true)], data)).toBe(true);
      expect(matchesFilters([group([no, no], 'OR', true)], data)).toBe(true);
      expect(matchesFilters([group([yes, no], 'OR', true)], data)).toBe(false);
    });

    it('every group must pass', () => {
      expect(matchesFilters([group([yes]), group([yes, no], 'OR')], data)).toBe(true);
      expect(matchesFilters([group([yes]), group([no])], data)).toBe(false);
    });

    it('an unknown combinator fails the group', () => {
      const odd = { ...group([yes]), value: 'XOR' } as unknown as StepFilter;
      expect(explainFilters([odd], data).groups[0]).toMatchObject({ passed: false, note: 'unknown combinator "XOR"' });
    });

    it('explains every condition and the first failed group', () => {
      const result = explainFilters([group([yes]), group([no, payload('order.total', 'LARGER', '100')], 'AND')], data);
      expect(result).toEqual({
        passed: false,
        failedGroup: 1,
        groups: [
          {
            index: 0,
            value: 'AND',
            isNegated: false,
            passed: true,
            conditions: [{ on: 'subscriber', field: 'data.plan', operator: 'EQUAL', expected: 'pro', actual: 'pro', passed: true }],
          },
          {
            index: 1,
            value: 'AND',
            isNegated: false,
            passed: false,
            conditions: [
              { on: 'subscriber', field: 'data.plan', operator: 'EQUAL', expected: 'free', actual: 'pro', passed: false },
              { on: 'payload', field: 'order.total', operator: 'LARGER', expected: '100', actual: '120.5', passed: true },
            ],
          },
        ],
      });
      expect(explainFilters([group([yes])], data)).toEqual(expect.objectContaining({ passed: true }));
      expect(explainFilters([group([yes])], data)).not.toHaveProperty('failedGroup');
    });

    it('shows arrays as JSON and cuts long values in the explanation', () => {
      const big = { subscriber: {}, payload: { text: 'x'.repeat(1000) } };
      const actual = explainFilters([group([payload('text', 'EQUAL', 'y')])], big).groups[0].conditions[0].actual;
      expect(actual).toBe(`${'x'.repeat(256)}…`);
      expect(evaluateCondition(subscriber('data.tags', 'EQUAL', 'x'), data).actual).toBe('["vip","early",3]');
    });
  });
});

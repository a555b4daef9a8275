/**
 * The local host memoizes dynalite's expression parsers on its thread
 * (functions/local/dynalite-expression-cache.ts). dynalite's validation of a request through
 * memoized parsers must answer exactly what it answers through its own: the same trees with this
 * request's values, the same validation message (unused or undefined names and values, operand
 * types, syntax), whether a parse is new or reuses a tree parsed for other values.
 */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { memoizedParse } from '../../functions/local/dynalite-expression-cache';

type Parse = Parameters<typeof memoizedParse>[1];
type Values = Record<string, Record<string, unknown>>;
interface Request {
  UpdateExpression?: string;
  ConditionExpression?: string;
  KeyConditionExpression?: string;
  FilterExpression?: string;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Values;
}

const requireHere = createRequire(import.meta.url);
const PARSER_NAMES = ['conditionParser', 'updateParser', 'projectionParser'] as const;
/** dynalite's parser modules, shared with its validation (this process never memoizes them). */
const parsers = PARSER_NAMES.map((name) => {
  const module = requireHere(`dynalite/db/${name}`) as { parse: Parse };
  return { name, module, original: module.parse };
});
const [, updateParser] = parsers as [(typeof parsers)[number], (typeof parsers)[number]];
const { validateExpressions } = requireHere('dynalite/validations') as {
  validateExpressions(data: Record<string, unknown>): string | undefined;
};

/** Puts the given parse functions in dynalite's parser modules (theirs when none are given). */
function useParsers(parses = parsers.map((parser) => parser.original)) {
  parsers.forEach((parser, i) => {
    parser.module.parse = parses[i] ?? parser.original;
  });
}

afterEach(() => useParsers());

/** What dynalite's validation makes of a request: its message, or the parsed expressions. */
function validated(request: Request) {
  const data: Record<string, unknown> = structuredClone({ ...request });
  const message = validateExpressions(data);
  const { _updates, _condition, _keyCondition, _filter, _projection } = data;
  return { message, trees: { _updates, _condition, _keyCondition, _filter, _projection }, data };
}

/** Memoized parsers, one cache each, as the thread installs them. */
function memoized(limit = 100) {
  return parsers.map((parser) => memoizedParse(parser.name, parser.original, limit));
}

/** Validates each request with dynalite's parsers and then with `memos`: the outcomes must be equal. */
function expectSameValidation(requests: Request[], memos = memoized()) {
  for (const request of requests) {
    const expected = validated(request);
    useParsers(memos);
    const actual = validated(request);
    useParsers();
    expect(actual.message).toEqual(expected.message);
    expect(actual.trees).toEqual(expected.trees);
    // The trees hold this request's own value objects, never a copy from another request.
    const values = Object.values((actual.data.ExpressionAttributeValues ?? {}) as Values);
    for (const tree of Object.values(actual.trees)) {
      for (const value of objectsIn(tree)) {
        if (values.some((own) => JSON.stringify(own) === JSON.stringify(value))) {
          expect(values).toContain(value);
        }
      }
    }
  }
  return memos;
}

function objectsIn(tree: unknown, found: object[] = []): object[] {
  if (typeof tree !== 'object' || tree === null) return found;
  found.push(tree);
  for (const child of Object.values(tree)) objectsIn(child, found);
  return found;
}

const S = (value: string) => ({ S: value });
const N = (value: string) => ({ N: value });

describe('memoized dynalite expression parsers', () => {
  it('validate the host’s writes as dynalite does, on the first request and on every later one', () => {
    const memos = memoized();
    const ends = ['running', 'completed', 'failed'].map((state, i) => ({
      UpdateExpression: 'SET #state = :state, #endedAt = :endedAt REMOVE gsi1pk, gsi1sk',
      ConditionExpression: 'attribute_exists(pk) AND #state IN (:from0, :from1)',
      ExpressionAttributeNames: { '#state': 'state', '#endedAt': 'endedAt' },
      ExpressionAttributeValues: {
        ':state': S(state),
        ':endedAt': S(`2026-11-29T0${i}:00:00Z`),
        ':from0': S('pending'),
        ':from1': S('running'),
      },
    }));
    const slots = ['-1', '1', '-1'].map((n) => ({
      UpdateExpression: 'ADD running :minus',
      ConditionExpression: 'running > :zero',
      ExpressionAttributeValues: { ':minus': N(n), ':zero': N('0') },
    }));
    const pointers = ['01A', '01B'].map((id) => ({
      UpdateExpression: 'SET latestCompletedExecutionId = :id',
      ConditionExpression:
        'attribute_exists(pk) AND (attribute_not_exists(latestCompletedExecutionId) OR latestCompletedExecutionId < :id)',
      ExpressionAttributeValues: { ':id': S(id) },
    }));
    const queries = ['A', 'B'].map((pk) => ({
      KeyConditionExpression: 'pk = :pk AND begins_with(#sk, :prefix)',
      FilterExpression: '#state = :state',
      ProjectionExpression: '#sk, #state, nested.list[1]',
      ExpressionAttributeNames: { '#sk': 'sk', '#state': 'state' },
      ExpressionAttributeValues: { ':pk': S(pk), ':prefix': S('NODE#'), ':state': S('running') },
    }));
    expectSameValidation([...ends, ...slots, ...pointers, ...queries, ...ends], memos);
  });

  it('keep apart values of different types (an operand type error is never reused for a number)', () => {
    expectSameValidation(
      ['1', 'one', '2', 'two'].map((v) => ({
        UpdateExpression: 'ADD n :v',
        ExpressionAttributeValues: { ':v': Number.isNaN(Number(v)) ? S(v) : N(v) },
      })),
    );
  });

  it('never reuse BETWEEN or attribute_type, whose checks read the values', () => {
    expectSameValidation([
      {
        ConditionExpression: 'n BETWEEN :low AND :high',
        ExpressionAttributeValues: { ':low': N('1'), ':high': N('2') },
      },
      {
        ConditionExpression: 'n BETWEEN :low AND :high',
        ExpressionAttributeValues: { ':low': N('3'), ':high': N('2') },
      },
      { ConditionExpression: 'attribute_type(n, :t)', ExpressionAttributeValues: { ':t': S('N') } },
      { ConditionExpression: 'attribute_type(n, :t)', ExpressionAttributeValues: { ':t': S('XX') } },
    ]);
  });

  it('report unused names and values as dynalite does when expressions share them', () => {
    const shared = {
      UpdateExpression: 'SET #s = :s',
      ConditionExpression: '#s = :old',
      ExpressionAttributeNames: { '#s': 'state' },
      ExpressionAttributeValues: { ':s': S('b'), ':old': S('a') },
    };
    const unusedValue = {
      ...shared,
      ExpressionAttributeValues: { ...shared.ExpressionAttributeValues, ':x': S('x') },
    };
    const unusedName = { ...shared, ExpressionAttributeNames: { '#s': 'state', '#n': 'n' } };
    const outcomes = [shared, unusedValue, unusedName, shared, unusedValue, unusedName].map(validated);
    expect(outcomes.map((o) => o.message)).toEqual([
      undefined,
      expect.stringMatching(/unused in expressions: keys: \{:x\}/),
      expect.stringMatching(/unused in expressions: keys: \{#n\}/),
      undefined,
      expect.stringMatching(/:x/),
      expect.stringMatching(/#n/),
    ]);
    expectSameValidation([shared, unusedValue, unusedName, shared, unusedValue, unusedName]);
  });

  it('answer syntax errors, undefined names, reserved words and redundant parentheses alike, every time', () => {
    const values = { ':v': S('x') };
    expectSameValidation(
      ['#a = = :v', '#b = :v', 'size = :v', '((#a = :v))', 'a = :w'].flatMap((condition) => [
        {
          ConditionExpression: condition,
          ExpressionAttributeNames: { '#a': 'a' },
          ExpressionAttributeValues: values,
        },
        {
          ConditionExpression: condition,
          ExpressionAttributeNames: { '#a': 'a' },
          ExpressionAttributeValues: values,
        },
      ]),
    );
    expectSameValidation([
      { UpdateExpression: 'SET a = :v, a = :v', ExpressionAttributeValues: values },
      { UpdateExpression: 'SET a = :v, a = :v', ExpressionAttributeValues: values },
    ]);
  });

  it('key a tree by its attribute names too', () => {
    expectSameValidation(
      ['sk', 'other', 'sk'].map((sk, i) => ({
        ConditionExpression: 'begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#sk': sk },
        ExpressionAttributeValues: { ':prefix': S(`P${i}`) },
      })),
    );
  });

  it('hand out copies: a caller changing its tree does not change the next request’s', () => {
    const memos = memoized();
    const request = {
      UpdateExpression: 'SET #s = :s',
      ExpressionAttributeNames: { '#s': 'state' },
      ExpressionAttributeValues: { ':s': S('a') },
    };
    useParsers(memos);
    type Updates = { sections: [{ path: string[] }] };
    const first = validated(request).trees._updates as Updates;
    first.sections[0].path.push('changed');
    const second = validated(request).trees._updates as Updates;
    expect(second.sections[0].path).toEqual(['state']);
  });

  it('keeps no tree that holds a copy of a value rather than the value', () => {
    let parses = 0;
    // A grammar rule that copied its operand would bake the first request's value into the tree.
    const copying: Parse = (_input, options) => {
      parses++;
      return { operand: { ...options?.context?.attrVals?.[':v'] } };
    };
    const memo = memoizedParse('conditionParser', copying, 10);
    const parseWith = (value: string) =>
      memo('a = :v', {
        context: { attrVals: { ':v': S(value) }, unusedAttrNames: {}, unusedAttrVals: { ':v': true } },
      });
    expect(parseWith('first')).toEqual({ operand: S('first') });
    expect(parseWith('second')).toEqual({ operand: S('second') });
    expect(parses).toBe(2);
  });

  it('keeps at most its limit of trees, dropping the oldest', () => {
    let parses = 0;
    const counted: Parse = function (this: unknown, input, options) {
      parses++;
      return updateParser.original.call(this, input, options);
    };
    const memo = memoizedParse('updateParser', counted, 2);
    updateParser.module.parse = memo;
    const set = (attribute: string) =>
      validated({
        UpdateExpression: `SET ${attribute} = :v`,
        ExpressionAttributeValues: { ':v': S(attribute) },
      });
    for (const attribute of ['a', 'b', 'a', 'c']) set(attribute);
    expect(parses).toBe(3); // a, b, c; the second `a` reused
    set('c');
    expect(parses).toBe(3);
    set('a'); // dropped when `c` came in
    expect(parses).toBe(4);
  });
});

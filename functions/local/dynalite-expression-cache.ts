import { createRequire } from 'node:module';

/**
 * dynalite parses every request's expressions anew with its PEG parsers: over half of its CPU per
 * write on the host's paths (replaying a pipeline run's calls: 380 of 660 ms), and the reason a
 * round of writes queues on its thread. The host sends a few dozen expression shapes, each time
 * with new values, so each parse is memoized by what its outcome can depend on: the expression,
 * its attribute names and the types of its values. The parsers check operands by type only, save
 * BETWEEN (compares its bounds) and attribute_type (reads its type name), which are never cached.
 * A cached tree holds slots where the values were; each request gets a copy with its own values.
 */

/** What dynalite's validation hands its parsers (validations/index.js, `validateExpressions`). */
interface ParseContext {
  attrNames?: Record<string, string>;
  attrVals?: Record<string, Record<string, unknown>>;
  unusedAttrNames?: Record<string, boolean>;
  unusedAttrVals?: Record<string, boolean>;
  isKeyCondition?: boolean;
  [other: string]: unknown;
}

type Parse = (input: string, options?: { context?: ParseContext }) => unknown;

interface ParserModule {
  parse: Parse;
}

interface CachedParse {
  /** The parse result with a `ValueSlot` wherever a value of the request was. */
  template: unknown;
  /** The attribute names and values the expression uses (marked used on each hit, as a parse does). */
  names: string[];
  values: string[];
}

/** Where an expression attribute value goes in a cached tree. */
class ValueSlot {
  constructor(readonly name: string) {}
}

/** Expressions whose validation reads values, not only their types. */
const VALUE_DEPENDENT = /\bbetween\b|attribute_type/i;

/** dynalite's attribute value types, in the order its parsers test them (`getImmediateType`). */
const VALUE_TYPES = ['S', 'N', 'B', 'NULL', 'BOOL', 'SS', 'NS', 'BS', 'L', 'M'];

const PARSERS = ['conditionParser', 'updateParser', 'projectionParser'] as const;

/** Marks a parser module already memoized (the module is shared by every importer in a process). */
const MEMOIZED = Symbol.for('service.dynalite-expression-cache');

/**
 * Memoizes dynalite's expression parsers in this thread (dynalite-thread.ts). `limit` bounds the
 * entries per parser; past it the oldest entry goes.
 */
export function memoizeDynaliteExpressionParsers(limit = 1000): void {
  const requireFromHere = createRequire(import.meta.url);
  for (const name of PARSERS) {
    const parser = requireFromHere(`dynalite/db/${name}`) as ParserModule & { [MEMOIZED]?: true };
    if (parser[MEMOIZED]) continue;
    parser[MEMOIZED] = true;
    parser.parse = memoizedParse(name, parser.parse, limit);
  }
}

/**
 * `parse` memoized as above, with a cache of at most `limit` trees of its own (exported for the
 * tests, which compare it with dynalite's parser).
 */
export function memoizedParse(parserName: string, parse: Parse, limit: number): Parse {
  const cache = new Map<string, CachedParse>();
  return function parseOrReuse(this: unknown, input, options) {
    const context = options?.context;
    if (!context || typeof input !== 'string' || VALUE_DEPENDENT.test(input)) {
      return parse.call(this, input, options);
    }
    const key = cacheKey(parserName, input, context);
    const cached = cache.get(key);
    if (cached) {
      for (const name of cached.names) delete context.unusedAttrNames?.[name];
      for (const value of cached.values) delete context.unusedAttrVals?.[value];
      return fill(cached.template, context.attrVals ?? {}, new Map());
    }
    // Parsed with sets of its own, so the names and values it uses are known whatever an earlier
    // expression of the same request used; then marked used in the request's sets.
    const unusedNames = Object.fromEntries(Object.keys(context.attrNames ?? {}).map((n) => [n, true]));
    const unusedValues = Object.fromEntries(Object.keys(context.attrVals ?? {}).map((v) => [v, true]));
    const result = parse.call(this, input, {
      ...options,
      context: { ...context, unusedAttrNames: unusedNames, unusedAttrVals: unusedValues },
    });
    const names = Object.keys(context.attrNames ?? {}).filter((n) => !(n in unusedNames));
    const values = Object.keys(context.attrVals ?? {}).filter((v) => !(v in unusedValues));
    for (const name of names) delete context.unusedAttrNames?.[name];
    for (const value of values) delete context.unusedAttrVals?.[value];
    // A string is a validation message: returned as is, not kept.
    if (typeof result !== 'object' || result === null) return result;
    const slots = new Map<unknown, ValueSlot>(
      Object.entries(context.attrVals ?? {}).map(([name, value]) => [value, new ValueSlot(name)]),
    );
    const template = toTemplate(result, slots, new Map());
    // A tree holding a copy of a value instead of the value itself would hand this request's value
    // to the next: such a parse is not kept (none of dynalite's grammar rules copies one).
    if (
      holdsValueCopy(template, new Set(Object.values(context.attrVals ?? {}).map((v) => JSON.stringify(v))))
    ) {
      return result;
    }
    if (cache.size >= limit) cache.delete(cache.keys().next().value as string);
    cache.set(key, { template, names, values });
    return result;
  };
}

function cacheKey(parserName: string, input: string, context: ParseContext): string {
  const valueTypes = Object.entries(context.attrVals ?? {}).map(
    ([name, value]) => `${name}=${VALUE_TYPES.find((type) => value?.[type] != null) ?? '?'}`,
  );
  return [
    parserName,
    context.isKeyCondition ? 'key' : '',
    input,
    JSON.stringify(context.attrNames ?? null),
    valueTypes.join(','),
  ].join('\u0000');
}

/** A copy of a parse result with its values replaced by slots (shared parts stay shared). */
function toTemplate(node: unknown, slots: Map<unknown, ValueSlot>, copies: Map<object, unknown>): unknown {
  if (typeof node !== 'object' || node === null) return node;
  const slot = slots.get(node);
  if (slot) return slot;
  return copy(node, copies, (child) => toTemplate(child, slots, copies));
}

/** Whether an object of the template (outside its slots) is written as one of the values is. */
function holdsValueCopy(node: unknown, valueTexts: ReadonlySet<string>): boolean {
  if (typeof node !== 'object' || node === null || node instanceof ValueSlot) return false;
  if (valueTexts.has(JSON.stringify(node))) return true;
  return Object.values(node).some((child) => holdsValueCopy(child, valueTexts));
}

/** A parse result for one request: the template with that request's values in its slots. */
function fill(node: unknown, values: Record<string, unknown>, copies: Map<object, unknown>): unknown {
  if (typeof node !== 'object' || node === null) return node;
  if (node instanceof ValueSlot) return values[node.name];
  return copy(node, copies, (child) => fill(child, values, copies));
}

/** Copies an array or a plain (or prototype-less) object once, mapping its members. */
function copy(node: object, copies: Map<object, unknown>, map: (child: unknown) => unknown): unknown {
  const done = copies.get(node);
  if (done) return done;
  if (Array.isArray(node)) {
    const array: unknown[] = [];
    copies.set(node, array);
    for (const child of node) array.push(map(child));
    return array;
  }
  const object: Record<string, unknown> = Object.create(Object.getPrototypeOf(node));
  copies.set(node, object);
  for (const [key, child] of Object.entries(node)) object[key] = map(child);
  return object;
}

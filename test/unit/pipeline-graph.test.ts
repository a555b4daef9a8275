import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../functions/core/errors';
import {
  criticalPathLength,
  dependencyGate,
  dependentsMap,
  dependentsOf,
  executionLevels,
  MAX_PIPELINE_NODES,
  type PipelineGraph,
  type PipelineNode,
  topologicalOrder,
  validatePipelineGraph,
} from '../../functions/core/pipeline-graph';

const query = { queryId: 42, performance: 'medium' as const };
const node = (id: number, dependencies: number[] = []): PipelineNode => ({
  id,
  dependencies,
  queryExecution: query,
});
const graphOf = (edges: Record<number, number[]>): PipelineGraph => ({
  nodes: Object.entries(edges).map(([id, deps]) => node(Number(id), deps)),
});

function rejection(graph: PipelineGraph): string {
  try {
    validatePipelineGraph(graph);
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    return (error as Error).message;
  }
  throw new Error('expected the graph to be rejected');
}

describe('validatePipelineGraph', () => {
  it('accepts a DAG mixing query and materialized-view nodes', () => {
    expect(() =>
      validatePipelineGraph({
        nodes: [
          { id: 1, dependencies: [], materializedViewRefresh: { name: 'dune.a.mv', performance: 'large' } },
          { id: 2, dependencies: [1], queryExecution: { ...query, queryParameters: { k: 'v' } } },
        ],
      }),
    ).not.toThrow();
  });

  it('accepts exactly MAX_PIPELINE_NODES nodes', () => {
    const nodes = Array.from({ length: MAX_PIPELINE_NODES }, (_, i) => node(i + 1, i ? [i] : []));
    expect(() => validatePipelineGraph({ nodes })).not.toThrow();
  });

  it.each([
    ['an empty graph', { nodes: [] }, /empty/],
    ['a missing node list', {} as PipelineGraph, /empty/],
    [
      'more than 300 nodes',
      { nodes: Array.from({ length: MAX_PIPELINE_NODES + 1 }, (_, i) => node(i + 1)) },
      /301 nodes; at most 300/,
    ],
    ['a non-integer id', { nodes: [node(1.5)] }, /id 1.5 is not an integer/],
    ['a string id', { nodes: [node('7' as unknown as number)] }, /id "7" is not an integer/],
    ['a duplicate id', { nodes: [node(1), node(2), node(1)] }, /id 1 is used twice/],
    ['a dependency on an unknown node', graphOf({ 1: [], 2: [9] }), /node 2 depends on unknown node 9/],
    ['a self-dependency', graphOf({ 1: [], 2: [1, 2] }), /node 2 depends on itself/],
    ['a duplicate dependency', graphOf({ 1: [], 2: [1, 1] }), /node 2 lists dependency 1 twice/],
    [
      'dependencies that are not an array',
      { nodes: [{ ...node(1), dependencies: undefined as unknown as number[] }] },
      /node 1: dependencies must be an array/,
    ],
    [
      'a node with both kinds',
      { nodes: [{ ...node(1), materializedViewRefresh: { name: 'mv', performance: 'medium' } }] },
      /node 1 has both query_execution and materialized_view_refresh/,
    ],
    ['a node with neither kind', { nodes: [{ id: 1, dependencies: [] }] }, /node 1 has neither/],
    [
      'an unknown performance tier',
      { nodes: [{ id: 1, dependencies: [], queryExecution: { queryId: 1, performance: 'huge' } }] },
      /node 1: performance must be one of medium, large, got "huge"/,
    ],
    [
      'a bad query id',
      { nodes: [{ id: 1, dependencies: [], queryExecution: { queryId: 0, performance: 'medium' } }] },
      /node 1: query_id must be a positive integer/,
    ],
    [
      'an empty view name',
      { nodes: [{ id: 1, dependencies: [], materializedViewRefresh: { name: ' ', performance: 'medium' } }] },
      /node 1: materialized view name must be a non-empty string/,
    ],
  ])('rejects %s', (_, graph, message) => {
    expect(rejection(graph as PipelineGraph)).toMatch(message);
  });

  it('names a two-node cycle, starting at its smallest id', () => {
    // 5 depends on 3 and 3 on 5.
    expect(rejection(graphOf({ 1: [], 3: [1, 5], 5: [3] }))).toContain('cycle: 3 → 5 → 3');
  });

  it('names a longer cycle in execution direction', () => {
    // 2 → 4 → 7 → 2: 4 depends on 2, 7 on 4, 2 on 7; node 9 hangs off the cycle.
    const message = rejection(graphOf({ 7: [4], 2: [7, 1], 4: [2], 1: [], 9: [7] }));
    expect(message).toContain('cycle: 2 → 4 → 7 → 2');
    expect(message).toContain('a → b: b depends on a');
  });

  it('finds the same cycle whatever the node order', () => {
    const a = rejection(graphOf({ 10: [30], 20: [10], 30: [20] }));
    const b = rejection({ nodes: [...graphOf({ 10: [30], 20: [10], 30: [20] }).nodes].reverse() });
    expect(a).toBe(b);
    expect(a).toContain('cycle: 10 → 20 → 30 → 10');
  });
});

describe('graph algorithms', () => {
  // a=1, b=2, c=3, d=4: the "N" graph a→c, a→d, b→d plus e=5 after c and d.
  const n = graphOf({ 5: [4, 3], 4: [1, 2], 3: [1], 2: [], 1: [] });

  it('orders topologically, smallest ready id first, whatever the input order', () => {
    expect(topologicalOrder(n)).toEqual([1, 2, 3, 4, 5]);
    expect(topologicalOrder({ nodes: [...n.nodes].reverse() })).toEqual([1, 2, 3, 4, 5]);
    expect(topologicalOrder(graphOf({ 9: [], 3: [9], 1: [3] }))).toEqual([9, 3, 1]);
  });

  it('groups nodes in levels by longest path from the roots', () => {
    expect(executionLevels(n)).toEqual([[1, 2], [3, 4], [5]]);
    // 4 depends on 1 directly and through 2 → 3: longest path puts it at level 3.
    expect(executionLevels(graphOf({ 1: [], 2: [1], 3: [2], 4: [1, 3] }))).toEqual([[1], [2], [3], [4]]);
  });

  it('lists dependents', () => {
    expect(dependentsOf(n, 1)).toEqual([3, 4]);
    expect(dependentsOf(n, 5)).toEqual([]);
    expect(Object.fromEntries(dependentsMap(n))).toEqual({ 1: [3, 4], 2: [4], 3: [5], 4: [5], 5: [] });
  });

  it('computes the critical path with node weights', () => {
    const duration = (id: number) => ({ 1: 10, 2: 100, 3: 10, 4: 10, 5: 1 })[id] ?? 0;
    expect(criticalPathLength(n, duration)).toBe(111); // 2 → 4 → 5
    expect(criticalPathLength(graphOf({ 1: [] }), () => 7)).toBe(7);
  });

  it('decides a dependency gate: skip early, proceed only when all succeeded', () => {
    expect(dependencyGate([])).toBe('proceed');
    expect(dependencyGate(['succeeded', 'succeeded'])).toBe('proceed');
    expect(dependencyGate(['succeeded', undefined])).toBe('wait');
    expect(dependencyGate([undefined, 'failed'])).toBe('skip');
    expect(dependencyGate(['succeeded', 'cancelled'])).toBe('skip');
    expect(dependencyGate(['skipped'])).toBe('skip');
  });
});

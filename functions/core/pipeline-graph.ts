/**
 * Pipeline graphs: the Dune-shaped node list (`{id, dependencies[], query_execution |
 * materialized_view_refresh}`), its validation and the graph algorithms the compiler, the runner
 * and the status API share. Pure code: no AWS, no engine.
 *
 * Edge direction: `b.dependencies` contains `a` means a must succeed before b starts; in messages
 * and comments this is written `a → b`. Every function is deterministic: ids are visited in
 * ascending order, so the same graph always gives the same output.
 */
import { PERFORMANCE_TIERS, type PerformanceTier } from './engine';
import { BadRequestError } from './errors';

/** Step Functions history (25,000 events) and definition size (1 MB) bound this; see ADR 0004. */
export const MAX_PIPELINE_NODES = 300;

export interface PipelineQueryExecution {
  queryId: number;
  performance: PerformanceTier;
  queryParameters?: Record<string, unknown>;
}

export interface PipelineMaterializedViewRefresh {
  name: string;
  performance: PerformanceTier;
}

/** Exactly one of `queryExecution` / `materializedViewRefresh` is set. */
export interface PipelineNode {
  id: number;
  /** Ids of the nodes that must succeed before this one starts. */
  dependencies: number[];
  queryExecution?: PipelineQueryExecution;
  materializedViewRefresh?: PipelineMaterializedViewRefresh;
}

export interface PipelineGraph {
  nodes: PipelineNode[];
}

/**
 * Checks everything the compiler and the runner rely on and throws a `BadRequestError` naming the
 * first problem found: size, ids, dependencies, node kind, cycles.
 */
export function validatePipelineGraph(graph: PipelineGraph): void {
  const nodes = graph?.nodes;
  if (!Array.isArray(nodes) || nodes.length === 0) {
    throw new BadRequestError('Pipeline graph is empty: it needs at least one node.');
  }
  if (nodes.length > MAX_PIPELINE_NODES) {
    throw new BadRequestError(
      `Pipeline graph has ${nodes.length} nodes; at most ${MAX_PIPELINE_NODES} are allowed.`,
    );
  }
  const ids = new Set<number>();
  for (const node of nodes) {
    if (!Number.isSafeInteger(node.id)) {
      throw new BadRequestError(`Pipeline node id ${JSON.stringify(node.id)} is not an integer.`);
    }
    if (ids.has(node.id)) throw new BadRequestError(`Pipeline node id ${node.id} is used twice.`);
    ids.add(node.id);
  }
  for (const node of nodes) {
    if (!Array.isArray(node.dependencies)) {
      throw new BadRequestError(`Pipeline node ${node.id}: dependencies must be an array of node ids.`);
    }
    const seen = new Set<number>();
    for (const dependency of node.dependencies) {
      if (dependency === node.id) {
        throw new BadRequestError(`Pipeline node ${node.id} depends on itself.`);
      }
      if (!ids.has(dependency)) {
        throw new BadRequestError(
          `Pipeline node ${node.id} depends on unknown node ${JSON.stringify(dependency)}.`,
        );
      }
      if (seen.has(dependency)) {
        throw new BadRequestError(`Pipeline node ${node.id} lists dependency ${dependency} twice.`);
      }
      seen.add(dependency);
    }
    validateNodeKind(node);
  }
  const cycle = findCycle(graph);
  if (cycle) {
    throw new BadRequestError(
      `Pipeline graph has a dependency cycle: ${cycle.join(' → ')} (a → b: b depends on a).`,
    );
  }
}

function validateNodeKind(node: PipelineNode): void {
  const query = node.queryExecution;
  const view = node.materializedViewRefresh;
  if (query && view) {
    throw new BadRequestError(
      `Pipeline node ${node.id} has both query_execution and materialized_view_refresh; it needs exactly one.`,
    );
  }
  if (!query && !view) {
    throw new BadRequestError(
      `Pipeline node ${node.id} has neither query_execution nor materialized_view_refresh; it needs exactly one.`,
    );
  }
  const performance = (query ?? view)!.performance;
  if (!PERFORMANCE_TIERS.includes(performance)) {
    throw new BadRequestError(
      `Pipeline node ${node.id}: performance must be one of ${PERFORMANCE_TIERS.join(', ')}, got ${JSON.stringify(performance)}.`,
    );
  }
  if (query && !(Number.isSafeInteger(query.queryId) && query.queryId > 0)) {
    throw new BadRequestError(`Pipeline node ${node.id}: query_id must be a positive integer.`);
  }
  if (view && (typeof view.name !== 'string' || view.name.trim() === '')) {
    throw new BadRequestError(`Pipeline node ${node.id}: materialized view name must be a non-empty string.`);
  }
}

const byNumber = (a: number, b: number) => a - b;

/** Sorted ids of the direct dependencies of each node. */
function dependencyMap(graph: PipelineGraph): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const node of [...graph.nodes].sort((a, b) => a.id - b.id)) {
    map.set(node.id, [...node.dependencies].sort(byNumber));
  }
  return map;
}

/**
 * The first cycle found, in execution direction, starting and ending at its smallest id
 * (e.g. `[3, 5, 3]`: 5 depends on 3 and 3 on 5), or undefined for a DAG. Iterative DFS over
 * dependency edges, ids ascending.
 */
function findCycle(graph: PipelineGraph): number[] | undefined {
  const dependencies = dependencyMap(graph);
  const state = new Map<number, 'open' | 'done'>();
  for (const root of dependencies.keys()) {
    if (state.has(root)) continue;
    // Path of nodes being explored; each frame remembers the next dependency to look at.
    const stack: { id: number; next: number }[] = [{ id: root, next: 0 }];
    state.set(root, 'open');
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const deps = dependencies.get(frame.id) ?? [];
      if (frame.next >= deps.length) {
        state.set(frame.id, 'done');
        stack.pop();
        continue;
      }
      const dep = deps[frame.next++]!;
      const seen = state.get(dep);
      if (seen === 'open') {
        // stack from dep to frame.id follows "depends on" edges; reverse for execution direction.
        const start = stack.findIndex((f) => f.id === dep);
        const dependsOnChain = stack.slice(start).map((f) => f.id);
        const executionOrder = dependsOnChain.reverse();
        const smallest = executionOrder.indexOf(Math.min(...executionOrder));
        const rotated = [...executionOrder.slice(smallest), ...executionOrder.slice(0, smallest)];
        return [...rotated, rotated[0]!];
      }
      if (seen === undefined) {
        state.set(dep, 'open');
        stack.push({ id: dep, next: 0 });
      }
    }
  }
  return undefined;
}

/** Sorted ids of the nodes that depend directly on `id`. */
export function dependentsOf(graph: PipelineGraph, id: number): number[] {
  return graph.nodes
    .filter((node) => node.dependencies.includes(id))
    .map((node) => node.id)
    .sort(byNumber);
}

/** For every node, the sorted ids of the nodes that depend directly on it (one pass). */
export function dependentsMap(graph: PipelineGraph): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const id of [...graph.nodes.map((node) => node.id)].sort(byNumber)) map.set(id, []);
  for (const node of graph.nodes) {
    for (const dependency of node.dependencies) map.get(dependency)?.push(node.id);
  }
  for (const list of map.values()) list.sort(byNumber);
  return map;
}

/** Kahn's algorithm, smallest ready id first. Throws on a cycle. */
function kahnOrder(graph: PipelineGraph): number[] {
  const dependents = dependentsMap(graph);
  const remaining = new Map(graph.nodes.map((node) => [node.id, new Set(node.dependencies).size]));
  const ready = [...remaining].filter(([, count]) => count === 0).map(([id]) => id);
  const order: number[] = [];
  while (ready.length > 0) {
    ready.sort(byNumber);
    const id = ready.shift()!;
    order.push(id);
    for (const dependent of dependents.get(id) ?? []) {
      const left = remaining.get(dependent)! - 1;
      remaining.set(dependent, left);
      if (left === 0) ready.push(dependent);
    }
  }
  if (order.length !== remaining.size) throw new Error('pipeline graph has a cycle');
  return order;
}

/**
 * Topological levels: level 0 holds the roots, level k the nodes whose longest dependency chain
 * from a root has k edges. Ids sorted within a level. This is the schedule of the rejected
 * "one Parallel per level" encoding and what the status API can show as execution order.
 * Assumes a valid graph (see `validatePipelineGraph`); throws on a cycle.
 */
export function executionLevels(graph: PipelineGraph): number[][] {
  const depth = new Map<number, number>();
  const dependencies = dependencyMap(graph);
  for (const id of kahnOrder(graph)) {
    const deps = dependencies.get(id) ?? [];
    depth.set(id, deps.length === 0 ? 0 : Math.max(...deps.map((dep) => depth.get(dep)!)) + 1);
  }
  const levels: number[][] = [];
  for (const [id, level] of depth) {
    levels[level] ??= [];
    levels[level].push(id);
  }
  return levels.map((level) => level.sort(byNumber));
}

/**
 * Every id, each after all of its dependencies: level by level (`executionLevels`), ids ascending
 * within a level. Level order puts the nodes that can start early first, which matters where
 * branches are started in order with a concurrency cap (aws-local-stepfunctions: 40).
 */
export function topologicalOrder(graph: PipelineGraph): number[] {
  return executionLevels(graph).flat();
}

/**
 * Length of the heaviest dependency chain, node weights given by `duration(id)`: the shortest
 * possible makespan of the pipeline with unlimited parallelism and no orchestration overhead.
 */
export function criticalPathLength(graph: PipelineGraph, duration: (id: number) => number): number {
  const finish = new Map<number, number>();
  const dependencies = dependencyMap(graph);
  let longest = 0;
  for (const id of topologicalOrder(graph)) {
    const start = Math.max(0, ...(dependencies.get(id) ?? []).map((dep) => finish.get(dep)!));
    const end = start + duration(id);
    finish.set(id, end);
    longest = Math.max(longest, end);
  }
  return longest;
}

/** How a finished node ended, as far as its dependents are concerned. */
export type NodeOutcome = 'succeeded' | 'failed' | 'skipped' | 'cancelled';

/**
 * What a node's dependency gate decides from its dependencies' outcomes (`undefined` = not ended
 * yet): `skip` as soon as one dependency ended without succeeding (the node will never run, so
 * there is no point waiting for the others), `proceed` once all succeeded, else `wait`.
 */
export function dependencyGate(
  outcomes: ReadonlyArray<NodeOutcome | undefined>,
): 'proceed' | 'skip' | 'wait' {
  if (outcomes.some((outcome) => outcome !== undefined && outcome !== 'succeeded')) return 'skip';
  return outcomes.every((outcome) => outcome === 'succeeded') ? 'proceed' : 'wait';
}

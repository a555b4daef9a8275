import { functionCall, nodeType } from './ast';
import { UnsupportedConstruct } from './errors';
import type { AstNode } from './polyglot';

/** What a rewrite rule may use: build nodes from SQL templates (`__1`, `__2` stand for arguments). */
export interface RuleContext {
  template(expression: string, args: AstNode[]): AstNode;
}

/** Replaces a call (`args` are its arguments) or returns undefined to keep it. */
export type Rule = (args: AstNode[], context: RuleContext, node: AstNode) => AstNode | undefined;

/** Rules by lower-case function name (generic calls) or by polyglot node type (`sum`, `cardinality`). */
export type RuleSet = Record<string, Rule>;

/** A rule that renames the call to one of the target's helper functions, arguments unchanged. */
export function renameTo(name: string): Rule {
  return (args, context) => context.template(`${name}(${args.map((_, i) => `__${i + 1}`).join(', ')})`, args);
}

/** A rule that refuses the construct with a message naming it and what to write instead. */
export function unsupported(construct: string, message: string): Rule {
  return () => {
    throw new UnsupportedConstruct(construct, message);
  };
}

/** The arguments of the node a rule matched: generic call args, or a typed node's operands. */
export function ruleArguments(node: AstNode, type: string): AstNode[] {
  const call = functionCall(node);
  if (call) return call.args;
  const body = node[type];
  if (!body || typeof body !== 'object') return [];
  const operands: AstNode[] = [];
  for (const key of ['this', 'expression', 'start', 'length', 'path', 'left', 'right']) {
    if (body[key] && nodeType(body[key])) operands.push(body[key]);
  }
  // Nodes that keep their arguments as a list (`array_intersect`).
  if (operands.length === 0 && Array.isArray(body.expressions)) operands.push(...body.expressions);
  return operands;
}

import type { DecisionSource as KernelSource } from '@airlock/contract';
import type { DecisionSource } from './record.js';

/**
 * The kernel's DecisionSource as an audit `decision_source`: rule id when a rule decided, the
 * handler when a vote had no rule, the user with the scope of their answer (once, session,
 * persisted) when a person resolved an ask.
 */
export function toAuditSource(source: KernelSource): DecisionSource {
  switch (source.kind) {
    case 'default':
      return { kind: 'default' };
    case 'vote':
      return source.rule === undefined ? { kind: 'handler', handler: source.handler } : { kind: 'rule', rule: source.rule, handler: source.handler };
    case 'approval':
      if (source.by === 'user') return { kind: 'user', handler: source.handler, ...(source.scope === undefined ? {} : { scope: source.scope }) };
      return {
        kind: 'approver',
        handler: source.handler,
        ...(source.by === undefined ? {} : { by: source.by }),
        ...(source.scope === undefined ? {} : { scope: source.scope }),
      };
    case 'no-approver':
      return { kind: 'no-approver' };
    case 'handler-failure':
      return { kind: 'handler-failure', handler: source.handler, phase: source.phase };
    case 'kernel':
      return { kind: 'kernel', reason: source.reason };
  }
}

/**
 * JSON-RPC 2.0 as this server speaks it: the error codes, the shapes of what goes over the line,
 * and how one parsed line is classified. Pure; no streams here.
 */

/** The spec's error codes, plus the ones this server adds in the implementation-defined range. */
export const RPC_ERRORS = {
  /** The line is not JSON. */
  parseError: -32700,
  /** JSON, but not a JSON-RPC request (or a line over the size limit). */
  invalidRequest: -32600,
  methodNotFound: -32601,
  /** The params do not match the method's schema; the message says what to send. */
  invalidParams: -32602,
  internalError: -32603,
  /** The server is shutting down and takes no new requests. */
  shuttingDown: -32000,
  /** A request with the id of one still running: ids must be unique among running requests. */
  duplicateId: -32001,
  /** A policy extension failed to load: every tool call would be refused, so no agent runs. */
  blocked: -32002,
} as const;

export type RpcId = string | number;

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface RpcRequest {
  jsonrpc: '2.0';
  id: RpcId;
  method: string;
  params?: unknown;
}

export interface RpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
}

export interface RpcResponse {
  jsonrpc: '2.0';
  id: RpcId | null;
  result?: unknown;
  error?: RpcErrorObject;
}

/** What one line turned out to be. */
export type Incoming =
  | { kind: 'request'; message: RpcRequest }
  | { kind: 'notification'; message: RpcNotification }
  /** An answer from the client to a request of ours (a dialog). */
  | { kind: 'response'; message: RpcResponse }
  | { kind: 'invalid'; id: RpcId | null; error: RpcErrorObject };

/** An error a method handler throws to answer with a JSON-RPC error instead of a result. */
export class RpcError extends Error {
  override name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is RpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * Classify one line of input. Never throws: whatever arrives is either a message to act on or an
 * error to answer (with the request's id when one can be read, else `null`).
 *
 * @example
 * classify('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'); // { kind: 'request', message: {…} }
 * classify('{oops');                                         // { kind: 'invalid', id: null, error: { code: -32700, … } }
 */
export function classify(line: string): Incoming {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { kind: 'invalid', id: null, error: { code: RPC_ERRORS.parseError, message: `Parse error: the line is not JSON (${(error as Error).message}). Send one JSON-RPC 2.0 object per line.` } };
  }
  if (!isObject(value)) {
    // Batches (arrays) are left out on purpose: tools/batch is the way to send several calls.
    const what = Array.isArray(value) ? 'an array (JSON-RPC batches are not supported; use tools/batch, or send one request per line)' : `a ${value === null ? 'null' : typeof value}`;
    return { kind: 'invalid', id: null, error: { code: RPC_ERRORS.invalidRequest, message: `Invalid request: got ${what}; send {"jsonrpc":"2.0","id":…,"method":…,"params":{…}}.` } };
  }
  const id = isId(value.id) ? value.id : null;
  // A response (to one of our dialogs) is never answered, even a malformed one: two peers that
  // answer each other's bad responses would do so for ever. The caller logs what it cannot use.
  if (!('method' in value) && ('result' in value || 'error' in value)) return { kind: 'response', message: value as unknown as RpcResponse };
  if (value.jsonrpc !== '2.0') {
    return { kind: 'invalid', id, error: { code: RPC_ERRORS.invalidRequest, message: 'Invalid request: "jsonrpc" must be "2.0".' } };
  }
  if ('method' in value) {
    if (typeof value.method !== 'string' || value.method === '') {
      return { kind: 'invalid', id, error: { code: RPC_ERRORS.invalidRequest, message: 'Invalid request: "method" must be a non-empty string.' } };
    }
    if ('params' in value && value.params !== undefined && typeof value.params !== 'object') {
      return { kind: 'invalid', id, error: { code: RPC_ERRORS.invalidRequest, message: 'Invalid request: "params" must be an object (or left out).' } };
    }
    if (!('id' in value)) return { kind: 'notification', message: value as unknown as RpcNotification };
    if (!isId(value.id)) {
      return { kind: 'invalid', id: null, error: { code: RPC_ERRORS.invalidRequest, message: 'Invalid request: "id" must be a string or a number (leave it out for a notification).' } };
    }
    return { kind: 'request', message: value as unknown as RpcRequest };
  }
  return { kind: 'invalid', id, error: { code: RPC_ERRORS.invalidRequest, message: 'Invalid request: no "method" (a request) and no "result" or "error" (a response).' } };
}

export function resultOf(id: RpcId, result: unknown): RpcResponse {
  return { jsonrpc: '2.0', id, result };
}

export function errorOf(id: RpcId | null, error: RpcErrorObject): RpcResponse {
  return { jsonrpc: '2.0', id, error };
}

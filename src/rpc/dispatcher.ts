/**
 * The JSON-RPC 2.0 envelope: parses a body (single request or batch), runs each request's method,
 * and writes responses in request order. Synchronous methods answer without a promise; a batch
 * runs its items concurrently and answers when all are done.
 */
import { MAX_BATCH_ITEMS } from '../config.js';
import { InternalError, InvalidParamsError, InvalidRequestError, MethodNotFoundError, ParseError, RpcError } from './errors.js';
import type { RpcHandler } from './handler.js';
import { RawJson, type MethodContext, type RpcMethod } from './method.js';
import { METHODS } from './methods/index.js';

/** Where unexpected failures are reported (their details never reach the client). */
export type ErrorSink = (message: string, error: unknown) => void;

type Answer = string | Promise<string>;

const decoder = new TextDecoder('utf-8', { fatal: true });

function idJson(id: unknown): string {
  return id === undefined ? 'null' : JSON.stringify(id);
}

function errorResponse(id: string, error: RpcError): string {
  return '{"jsonrpc":"2.0","id":' + id + ',"error":' + JSON.stringify(error) + '}';
}

function resultResponse(id: string, result: unknown): string {
  const json = result instanceof RawJson ? result.text : JSON.stringify(result === undefined ? null : result);
  return '{"jsonrpc":"2.0","id":' + id + ',"result":' + json + '}';
}

function isValidId(id: unknown): boolean {
  return id === undefined || id === null || typeof id === 'string' || typeof id === 'number';
}

/** Builds the handler that answers JSON-RPC bodies with the methods of METHODS over `ctx`. */
export function createRpcHandler(ctx: MethodContext, onError: ErrorSink, methods: ReadonlyMap<string, RpcMethod> = METHODS): RpcHandler {
  const failure = (id: string, error: unknown): string => {
    if (error instanceof RpcError) return errorResponse(id, error);
    onError('unexpected failure in a method', error);
    return errorResponse(id, new InternalError());
  };

  const handleOne = (request: unknown): Answer => {
    if (request === null || typeof request !== 'object' || Array.isArray(request)) {
      return errorResponse('null', new InvalidRequestError());
    }
    const { jsonrpc, method, params, id } = request as Record<string, unknown>;
    if (!isValidId(id)) return errorResponse('null', new InvalidRequestError());
    const idText = idJson(id);
    if (jsonrpc !== '2.0' || typeof method !== 'string') return errorResponse(idText, new InvalidRequestError());
    const fn = methods.get(method);
    if (!fn) return errorResponse(idText, new MethodNotFoundError(method));
    if (params !== undefined && params !== null && !Array.isArray(params)) {
      return errorResponse(idText, new InvalidParamsError('non-array args'));
    }
    try {
      const result = fn((params as unknown[] | undefined) ?? [], ctx);
      if (result instanceof Promise) {
        return result.then(
          (value) => resultResponse(idText, value),
          (error) => failure(idText, error),
        );
      }
      return resultResponse(idText, result);
    } catch (error) {
      return failure(idText, error);
    }
  };

  const handleBatch = (requests: unknown[]): Answer => {
    if (requests.length === 0) return errorResponse('null', new InvalidRequestError('empty batch'));
    if (requests.length > MAX_BATCH_ITEMS) return errorResponse('null', new InvalidRequestError('batch too large'));
    const answers = requests.map(handleOne);
    if (answers.every((a): a is string => typeof a === 'string')) return '[' + answers.join(',') + ']';
    return Promise.all(answers).then((all) => '[' + all.join(',') + ']');
  };

  return {
    handle(body: Uint8Array): Answer {
      let parsed: unknown;
      try {
        parsed = JSON.parse(decoder.decode(body));
      } catch {
        return errorResponse('null', new ParseError());
      }
      return Array.isArray(parsed) ? handleBatch(parsed) : handleOne(parsed);
    },
  };
}

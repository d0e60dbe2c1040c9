/**
 * What an HTTP front answers from one store handle, built the same way on every HTTP thread (the
 * main thread's app and each httpThread.ts): the JSON-RPC handler over a method context, the API key
 * check on that handle (so a revocation by another process is seen on the next request), the
 * readiness of its store, and the WebSocket subscriptions fed by its head.
 */

import type { ReplicaSync } from '../replica/lag.js';
import type { AnswerCache } from '../rpc/answerCache.js';
import type { ErrorSink } from '../rpc/dispatcher.js';
import { createRpcHandler } from '../rpc/dispatcher.js';
import type { ForwardOptions } from '../rpc/forward.js';
import type { MethodContext } from '../rpc/method.js';
import { METHODS } from '../rpc/methods/index.js';
import type { CallObserver } from '../rpc/observe.js';
import { checkApiKey } from '../store/apiKeys.js';
import type { Store } from '../store/schema.js';
import { HeadHeader } from './headHeader.js';
import { type MetricsText, storeReadiness } from './health.js';
import { HeadWaiters } from './minHead.js';
import type { HttpServerOptions } from './server.js';

/** What a front over one store handle is made of. */
export interface StoreFrontParts {
  /** The store handle keys are checked on. */
  store: Store;
  /** The method context over the same store (its reader answers readiness too). */
  ctx: MethodContext;
  /** Where unexpected failures in methods are reported. */
  onError: ErrorSink;
  /** Hears every answered call (the metrics), when counted. */
  observer?: CallObserver;
  /** Keeps answers of the calls it may keep, over `ctx.reader` (whose markers it reads per tick); none when unset. */
  answerCache?: AnswerCache;
  /** Renders /metrics; without it /metrics is not served. */
  metrics?: () => Promise<MetricsText>;
  /** The node a replica follows and the lag it tolerates (/ready, eth_syncing); unset when it follows none. */
  sync?: ReplicaSync;
  /**
   * What is forwarded to the upstream node and how (serve --upstream); a call above the head waits
   * for it up to `headWaitMs` (MIN_HEAD_WAIT_MS by default). Nothing is forwarded when unset.
   */
  forward?: Omit<ForwardOptions, 'waitForHead'> & { headWaitMs?: number };
}

/** The wait of a forwarded call for the store's head to reach its block, over `waiters`. */
function headWait(waiters: HeadWaiters): (floor: number) => Promise<boolean> {
  return (floor) =>
    waiters.reached(floor) ? Promise.resolve(true) : new Promise((resolve) => waiters.wait(floor, resolve));
}

/** The handler, key check, answers' head header and operations endpoints of an HTTP front over `parts.store`. */
export function storeFront(
  parts: StoreFrontParts,
): Pick<HttpServerOptions, 'handler' | 'auth' | 'storeHead' | 'readHead' | 'ops' | 'ws'> {
  const { store, ctx, sync } = parts;
  const head = new HeadHeader(ctx.reader);
  const forward = parts.forward && {
    ...parts.forward,
    waitForHead: headWait(new HeadWaiters(() => ctx.reader.head(), parts.forward.headWaitMs)),
  };
  return {
    handler: createRpcHandler(
      sync === undefined ? ctx : { ...ctx, sync },
      parts.onError,
      METHODS,
      parts.observer,
      parts.answerCache,
      forward,
    ),
    auth: (key) => checkApiKey(store, key),
    storeHead: () => head.value(),
    readHead: () => ctx.reader.head(),
    ops: { ready: () => storeReadiness(ctx.reader, sync), metrics: parts.metrics },
    ws: { reader: ctx.reader, maxParams: ctx.limits.maxParams },
  };
}

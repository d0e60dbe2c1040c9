/**
 * Integration-test harness: a generated dataset in a temp directory, API keys, the real service on
 * an ephemeral port, and a JSON-RPC client over real HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogLimits } from '#src/config.js';
import { createLogger } from '#src/logger.js';
import { type RunningService, startService } from '#src/service.js';
import { createApiKey, revokeApiKey } from '#src/store/apiKeys.js';
import { closeStore, openStore } from '#src/store/schema.js';
import { generateStore } from '#src/synth/generateStore.js';

/** A dataset generated for tests, with its keys. */
export interface TestDataset {
  dir: string;
  key: string;
  revokedKey: string;
  remove(): void;
}

/** Generates `blocks` blocks at `density` into a fresh temp dir and makes a valid and a revoked key. */
export async function makeDataset(blocks: number, density: number, seed = 'test'): Promise<TestDataset> {
  const dir = mkdtempSync(join(tmpdir(), 'ethlogd-it-'));
  await generateStore(dir, { blocks, seed, density, pending: true, progress: false });
  const store = openStore(dir);
  const key = createApiKey(store, 'test');
  const revokedKey = createApiKey(store, 'revoked');
  revokeApiKey(store, revokedKey);
  await closeStore(store);
  return { dir, key, revokedKey, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A JSON-RPC response body. */
export interface RpcResponse {
  jsonrpc: string;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** A service under test with a client bound to it. */
export interface TestService {
  service: RunningService;
  endpoint: string;
  /** POSTs `body` (serialised unless a string) and returns status and parsed JSON. */
  post(body: unknown, path?: string): Promise<{ status: number; json: unknown }>;
  /** Calls one method and returns the whole response. */
  call(method: string, params: unknown[]): Promise<RpcResponse>;
  /** Calls one method and returns its result, failing on an error. */
  result(method: string, params: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

/** Starts the real service over `dataset` on an ephemeral port. */
export async function startTestService(dataset: TestDataset, limits?: Partial<LogLimits>): Promise<TestService> {
  const service = await startService({
    dataDir: dataset.dir,
    host: '127.0.0.1',
    port: 0,
    logger: createLogger('warn'),
    limits,
  });
  const endpoint = `${service.url}/v3/${dataset.key}`;
  let nextId = 1;
  const post = async (body: unknown, path = `/v3/${dataset.key}`) => {
    const res = await fetch(service.url + path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: JSON.parse(text) as unknown };
  };
  const call = async (method: string, params: unknown[]) => {
    const id = nextId++;
    const { json } = await post({ jsonrpc: '2.0', id, method, params });
    return json as RpcResponse;
  };
  const result = async (method: string, params: unknown[]) => {
    const res = await call(method, params);
    if (res.error) throw new Error(`${method} failed: ${JSON.stringify(res.error)}`);
    return res.result;
  };
  return { service, endpoint, post, call, result, close: () => service.close().then(() => undefined) };
}

/** An answer read whole, its body as it came off the wire. */
export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Sends one request with node:http (which decodes nothing; POST of JSON unless told) and reads the whole answer. */
export function exchange(
  url: string,
  options: { method?: string; body?: string | Buffer; headers?: http.OutgoingHttpHeaders } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method ?? 'POST', headers: { 'content-type': 'application/json', ...options.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

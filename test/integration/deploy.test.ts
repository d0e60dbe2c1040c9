/**
 * deploy/ as operators use it: the Grafana dashboard's and the alert rules' expressions name only
 * metrics a real replica's /metrics exports (the alerts also `up` and node_exporter's filesystem
 * metrics), the rules pass `promtool check rules` and fire in `promtool test rules`, the systemd
 * unit passes `systemd-analyze verify`, and the Dockerfile is multi-stage, non-root, with a
 * healthcheck on /ready (built where a Docker daemon answers). Each tool's check is skipped by name
 * where the tool is missing; hadolint is not packaged for Debian, so the Dockerfile's structure is
 * checked here instead.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createLogger } from '#src/logger.js';
import { NodeHeadGauge } from '#src/replica/nodeHead.js';
import { type RunningService, startService } from '#src/service.js';
import { makeDataset, type TestDataset } from '../support/harness.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DEPLOY = `${ROOT}deploy/`;
const run = promisify(execFile);
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const missing = (tool: string, install: string) => (has(tool) ? false : `${tool} is not installed (${install})`);
const dockerDaemon = has('docker') && spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;

/** Names a PromQL expression uses that are not functions, keywords, labels or numbers: its metrics. */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\w+/g, ' ');
  const keywords = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);
  return [...new Set(stripped.match(/\b[a-zA-Z_:][a-zA-Z0-9_:]*\b(?!\s*\()/g) ?? [])].filter(
    (w) => !keywords.has(w.toLowerCase()),
  );
}

/** Metrics an alert may use that ethlogd does not export: Prometheus' own `up`, node_exporter's filesystem gauges. */
const OUTSIDE = new Set(['up', 'node_filesystem_avail_bytes', 'node_filesystem_size_bytes']);

let dataset: TestDataset;
let service: RunningService;
let exported: Set<string>;

before(async () => {
  dataset = await makeDataset(30, 0.05, 'deploy');
  const gauge = new NodeHeadGauge();
  gauge.setNodeHead(40);
  // As `serve` runs it (a read-only process: its answer cache on), a replica that has answered a call.
  const replica = { gauge, maxLagBlocks: 5 };
  service = await startService({
    dataDir: dataset.dir,
    host: '127.0.0.1',
    port: 0,
    logger: createLogger('warn'),
    threads: 1,
    readOnlyProcess: true,
    replica,
  });
  const call = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] };
  await fetch(`${service.url}/v3/${dataset.key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(call),
  });
  const text = await (await fetch(`${service.url}/metrics`)).text();
  assert.match(text, /^ethlogd_node_head_block 40$/m, "the replica's node head as polled");
  exported = new Set(
    text
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'))
      .map((l) => /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(l)![0]),
  );
});

after(async () => {
  await service?.close();
  dataset?.remove();
});

test('metricNames finds the metrics of an expression and nothing else', () => {
  assert.deepEqual(
    metricNames('histogram_quantile(0.99, sum by (method, le) (rate(a_bucket{method!~"x|y"}[5m]))) > 2'),
    ['a_bucket'],
  );
  assert.deepEqual(metricNames('b - c > 5 and on (instance) d{x="1"} offset 5m'), ['b', 'c', 'd']);
  assert.deepEqual(metricNames('sum(rate(e[$__rate_interval])) / 24 * 3600'), ['e']);
});

test('every expression of the Grafana dashboard names metrics a real ethlogd exports', () => {
  const dashboard = JSON.parse(readFileSync(`${DEPLOY}grafana/ethlogd-dashboard.json`, 'utf8')) as {
    panels: { id: number; type: string; targets?: { expr: string }[] }[];
  };
  const exprs = dashboard.panels.flatMap((p) => p.targets?.map((t) => t.expr) ?? []);
  assert.ok(exprs.length >= 20, `${exprs.length} expressions`);
  assert.equal(new Set(dashboard.panels.map((p) => p.id)).size, dashboard.panels.length, 'panel ids are unique');
  const used = new Set(exprs.flatMap(metricNames));
  assert.deepEqual(
    [...used].filter((name) => !exported.has(name)),
    [],
    'metrics the dashboard names that /metrics does not export',
  );
  for (const name of [
    'ethlogd_rpc_requests_total',
    'ethlogd_rpc_request_duration_seconds_bucket',
    'ethlogd_head_block',
    'ethlogd_node_head_block',
    'ethlogd_store_size_bytes',
  ]) {
    assert.ok(used.has(name), `the dashboard shows ${name}`);
  }
});

test('the alert rules cover lag, errors, latency, refusals and disk over metrics ethlogd exports', () => {
  const rules = readFileSync(`${DEPLOY}prometheus/ethlogd-alerts.yml`, 'utf8');
  const exprs = [...rules.matchAll(/^\s+expr: (.+)$/gm)].map((m) => m[1]!);
  const alerts = [...rules.matchAll(/^\s+- alert: (\w+)$/gm)].map((m) => m[1]!);
  assert.equal(exprs.length, alerts.length, 'one single-line expr per alert');
  const unknown = exprs.flatMap(metricNames).filter((name) => !exported.has(name) && !OUTSIDE.has(name));
  assert.deepEqual(unknown, [], 'metrics the rules name that /metrics does not export');
  for (const alert of [
    'EthlogdReplicaLagging',
    'EthlogdErrorRate',
    'EthlogdInternalErrors',
    'EthlogdPointLookupLatency',
    'EthlogdGetLogsLatency',
    'EthlogdRateLimited',
    'EthlogdRefusals',
    'EthlogdDiskFillsWithin24h',
  ]) {
    assert.ok(alerts.includes(alert), alert);
  }
});

test('promtool check rules passes, and promtool test rules fires the alerts as expected', {
  skip: missing('promtool', 'apt-get install -y prometheus'),
}, async () => {
  const checked = await run('promtool', ['check', 'rules', 'ethlogd-alerts.yml'], { cwd: `${DEPLOY}prometheus` });
  assert.match(checked.stdout, /SUCCESS: \d+ rules found/);
  const tested = await run('promtool', ['test', 'rules', 'ethlogd-alerts.test.yml'], { cwd: `${DEPLOY}prometheus` });
  assert.match(tested.stdout, /SUCCESS/);
});

test('systemd-analyze verify passes the unit without a warning about it', {
  skip: missing('systemd-analyze', 'systemd'),
}, () => {
  const unit = `${DEPLOY}systemd/ethlogd.service`;
  const ran = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
  assert.equal(ran.status, 0, ran.stderr);
  assert.deepEqual(
    ran.stderr.split('\n').filter((l) => l.includes('ethlogd.service')),
    [],
  );
  assert.match(readFileSync(unit, 'utf8'), /^User=ethlogd$/m, 'not root');
});

/** The Dockerfile's instructions (continuation lines joined, comments dropped), each as [instruction, arguments]. */
function instructions(text: string): [string, string][] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'))
    .map((l) => {
      const [word, ...rest] = l.trim().split(/\s+/);
      return [word!.toUpperCase(), rest.join(' ')];
    });
}

test('the Dockerfile builds in stages, runs as a user, checks /ready, and copies only what exists', () => {
  const steps = instructions(readFileSync(`${DEPLOY}Dockerfile`, 'utf8'));
  const froms = steps.filter(([i]) => i === 'FROM').map(([, a]) => a);
  assert.ok(froms.length >= 2, 'multi-stage');
  for (const image of froms) assert.match(image, /^node:\d+\.\d+[\w.-]*( AS \w+)?$/, `a pinned Node image: ${image}`);
  const final = steps.slice(steps.map(([i]) => i).lastIndexOf('FROM'));
  const user = final.filter(([i]) => i === 'USER').at(-1)?.[1];
  assert.ok(user !== undefined && !/^(root|0)(:|$)/.test(user), `the final stage runs as a user: ${user}`);
  assert.match(final.find(([i]) => i === 'HEALTHCHECK')?.[1] ?? '', /\/ready/, 'HEALTHCHECK on /ready');
  assert.ok(
    final.some(([i, a]) => i === 'COPY' && a.startsWith('--from=build ')),
    'the runtime copies the build stage output',
  );
  assert.ok(
    !final.some(([i, a]) => i === 'RUN' && /\b(npm ci|tsc)\b/.test(a)),
    'no install or build in the runtime stage',
  );
  assert.match(final.find(([i]) => i === 'ENTRYPOINT')?.[1] ?? '', /"dist\/src\/cli\.js"/);
  for (const [, args] of steps.filter(([i, a]) => i === 'COPY' && !a.startsWith('--from'))) {
    const sources = args.split(/\s+/).slice(0, -1);
    for (const source of sources) assert.ok(existsSync(`${ROOT}${source}`), `COPY ${source} exists in the repository`);
  }
  const ignore = readFileSync(`${DEPLOY}Dockerfile.dockerignore`, 'utf8');
  assert.match(ignore, /^\*\*$/m, 'the context excludes everything not copied (node_modules, dist, stores)');
});

test('hadolint lints the Dockerfile', {
  skip: missing('hadolint', 'not packaged for Debian: its release binary'),
}, async () => {
  await run('hadolint', [`${DEPLOY}Dockerfile`]);
});

test('docker builds the image, and the image runs the CLI', {
  skip: dockerDaemon ? false : 'no Docker daemon answers `docker info`',
}, async () => {
  await run('docker', ['build', '-f', 'deploy/Dockerfile', '-t', 'ethlogd:test', '.'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const { stdout } = await run('docker', ['run', '--rm', 'ethlogd:test', '--version']);
  assert.match(stdout, /^ethlogd \d+\.\d+\.\d+/);
});

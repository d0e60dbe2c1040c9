#!/usr/bin/env node
/**
 * The ethlogd command line: serve, generate, ingest, keys, reindex, migrate, verify, snapshot, query,
 * export, workload, loadtest.
 */
import { UsageError } from './cli/args.js';
import { CLIENT_VERSION } from './config.js';
import { PortUnavailableError } from './listenError.js';
import { redactSecrets } from './logger.js';

const USAGE = `Usage: ethlogd <command> [options]

Commands:
  serve      serve a store over JSON-RPC (HTTP)
  generate   generate a synthetic mainnet-like chain into a store
  ingest     copy (or follow) an Ethereum node's chain into a store
  keys       create, list and revoke API keys
  reindex    rebuild a store's derived log indexes (address tables, bloom bits)
  migrate    convert a store of the previous layout version to this one, in place
  verify     check a store's consistency (blocks, indexes, markers)
  snapshot   copy a live store, consistent and compacted, to seed a replica
  query      print logs (streamed, uncapped), a block, a transaction or storage from a store
  export     write logs, blocks, transactions or receipts to Parquet files in cryo's layout
  workload   draw a request corpus from a store, as JSONL and a wrk script, for load tests
  loadtest   replay a workload against a JSON-RPC URL: req/s, latency percentiles, errors by shape

Run "ethlogd <command> --help" for a command's options; "ethlogd --version" prints the version.`;

/** The line after a usage error: where to read the options (`command` empty: the command list). */
const HELP_POINTER = (command: string) =>
  `Run "ethlogd ${command === '' ? '' : `${command} `}--help" ` +
  `for ${command === '' ? 'what each does' : 'its options'}.`;

/** A command: how it runs and its usage text. */
interface Command {
  run: (argv: string[]) => Promise<number>;
  usage: string;
}

/** Each command's module, loaded only when that command runs (so `--help` and light commands start fast). */
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: () => import('./cli/serve.js').then((m) => ({ run: m.serveCommand, usage: m.SERVE_USAGE })),
  generate: () => import('./cli/generate.js').then((m) => ({ run: m.generateCommand, usage: m.GENERATE_USAGE })),
  ingest: () => import('./cli/ingest.js').then((m) => ({ run: m.ingestCommand, usage: m.INGEST_USAGE })),
  keys: () => import('./cli/keys.js').then((m) => ({ run: m.keysCommand, usage: m.KEYS_USAGE })),
  reindex: () => import('./cli/reindex.js').then((m) => ({ run: m.reindexCommand, usage: m.REINDEX_USAGE })),
  migrate: () => import('./cli/migrate.js').then((m) => ({ run: m.migrateCommand, usage: m.MIGRATE_USAGE })),
  verify: () => import('./cli/verify.js').then((m) => ({ run: m.verifyCommand, usage: m.VERIFY_USAGE })),
  snapshot: () => import('./cli/snapshot.js').then((m) => ({ run: m.snapshotCommand, usage: m.SNAPSHOT_USAGE })),
  query: () => import('./cli/query.js').then((m) => ({ run: m.queryCommand, usage: m.QUERY_USAGE })),
  export: () => import('./cli/export.js').then((m) => ({ run: m.exportCommand, usage: m.EXPORT_USAGE })),
  workload: () => import('./cli/workload.js').then((m) => ({ run: m.workloadCommand, usage: m.WORKLOAD_USAGE })),
  loadtest: () => import('./cli/loadtest.js').then((m) => ({ run: m.loadtestCommand, usage: m.LOADTEST_USAGE })),
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V') {
    console.log(CLIENT_VERSION.replace('/', ' '));
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    console.error(`unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')})\n${HELP_POINTER('')}`);
    return 2;
  }
  const command = await load();
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      // The one line that matters, and where the options are: not the whole usage (70 lines for serve).
      console.error(`ethlogd ${name}: ${error.message}\n${HELP_POINTER(name)}`);
      return 2;
    }
    if (error instanceof PortUnavailableError) {
      console.error(`ethlogd ${name}: ${error.message}`);
      return 2;
    }
    console.error(`ethlogd ${name}: ${redactSecrets(error instanceof Error ? error.message : String(error))}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

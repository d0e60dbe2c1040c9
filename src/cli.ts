#!/usr/bin/env node
/**
 * The ethlogd command line: serve, generate, ingest, keys, reindex.
 */
import { UsageError } from './cli/args.js';
import { CLIENT_VERSION, PortUnavailableError, redactSecrets } from './index.js';
import { REINDEX_USAGE, reindexCommand } from './cli/reindex.js';
import { GENERATE_USAGE, generateCommand } from './cli/generate.js';
import { INGEST_USAGE, ingestCommand } from './cli/ingest.js';
import { KEYS_USAGE, keysCommand } from './cli/keys.js';
import { QUERY_USAGE, queryCommand } from './cli/query.js';
import { SERVE_USAGE, serveCommand } from './cli/serve.js';
import { VERIFY_USAGE, verifyCommand } from './cli/verify.js';

const USAGE = `Usage: ethlogd <command> [options]

Commands:
  serve      serve a store over JSON-RPC (HTTP)
  generate   generate a synthetic mainnet-like chain into a store
  ingest     copy (or follow) an Ethereum node's chain into a store
  keys       create, list and revoke API keys
  reindex    rebuild a store's derived log indexes (address tables, bloom bits)
  verify     check a store's consistency (blocks, indexes, markers)
  query      print logs (streamed, uncapped), a block, a transaction or storage from a store

Run "ethlogd <command> --help" for a command's options; "ethlogd --version" prints the version.`;

const COMMANDS: Record<string, { run: (argv: string[]) => Promise<number>; usage: string }> = {
  serve: { run: serveCommand, usage: SERVE_USAGE },
  generate: { run: generateCommand, usage: GENERATE_USAGE },
  ingest: { run: ingestCommand, usage: INGEST_USAGE },
  keys: { run: keysCommand, usage: KEYS_USAGE },
  reindex: { run: reindexCommand, usage: REINDEX_USAGE },
  verify: { run: verifyCommand, usage: VERIFY_USAGE },
  query: { run: queryCommand, usage: QUERY_USAGE },
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
  const command = COMMANDS[name];
  if (!command) {
    console.error(`unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`ethlogd ${name}: ${error.message}\n\n${command.usage}`);
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

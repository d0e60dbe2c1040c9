/**
 * The Solidity test contracts (test/fixtures/contracts/*.sol) compiled with solc (the npm package,
 * offline) once per process, with their ABIs for encoding calls.
 */
import { readdirSync, readFileSync } from 'node:fs';
import solc from 'solc';
import type { Abi } from 'viem';

/** A compiled contract: its ABI and creation bytecode (hex). */
export interface CompiledContract {
  abi: Abi;
  bytecode: `0x${string}`;
}

const SOURCES = new URL('../../../test/fixtures/contracts/', import.meta.url);

let compiled: Record<string, CompiledContract> | undefined;

/** Every contract of the fixture sources, by name (compiled on first use, then cached). */
export function contracts(): Record<string, CompiledContract> {
  if (compiled) return compiled;
  const sources: Record<string, { content: string }> = {};
  for (const file of readdirSync(SOURCES).filter((f) => f.endsWith('.sol'))) {
    sources[file] = { content: readFileSync(new URL(file, SOURCES), 'utf8') };
  }
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  compiled = {};
  for (const file of Object.values(output.contracts)) {
    for (const [name, c] of Object.entries(file))
      compiled[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  }
  return compiled;
}

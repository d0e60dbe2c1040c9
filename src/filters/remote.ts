/**
 * The polling filters of an HTTP thread, kept by the main thread's registry: each FilterService
 * call crosses the thread's port as a FilterCall and comes back as its result or error.
 */
import type { FilterSpec } from '../logs/filter.js';
import type { FilterService } from './registry.js';

/** One FilterService call as plain data. */
export type FilterCall =
  | { op: 'newLogFilter'; spec: FilterSpec; owner?: string }
  | { op: 'newBlockFilter'; owner?: string }
  | { op: 'changes'; id: string }
  | { op: 'criteria'; id: string }
  | { op: 'uninstall'; id: string };

/** Runs `call` on `filters` (the main thread's side). */
export function runFilterCall(filters: FilterService, call: FilterCall): unknown {
  switch (call.op) {
    case 'newLogFilter':
      return filters.newLogFilter(call.spec, call.owner);
    case 'newBlockFilter':
      return filters.newBlockFilter(call.owner);
    case 'changes':
      return filters.changes(call.id);
    case 'criteria':
      return filters.criteria(call.id);
    case 'uninstall':
      return filters.uninstall(call.id);
  }
}

/** A FilterService whose calls are answered elsewhere (an HTTP thread's side). */
export class RemoteFilters implements FilterService {
  /** Sends each call with `ask` and resolves with what the other side answers. */
  constructor(private readonly ask: (call: FilterCall) => Promise<unknown>) {}

  /** Installs a log filter on the other side for API key `owner`. */
  newLogFilter(spec: FilterSpec, owner?: string): Promise<string> {
    return this.ask({ op: 'newLogFilter', spec, owner }) as Promise<string>;
  }

  /** Installs a block filter on the other side for API key `owner`. */
  newBlockFilter(owner?: string): Promise<string> {
    return this.ask({ op: 'newBlockFilter', owner }) as Promise<string>;
  }

  /** Polls filter `id` on the other side. */
  changes(id: string): Promise<string[]> {
    return this.ask({ op: 'changes', id }) as Promise<string[]>;
  }

  /** The criteria of log filter `id` on the other side. */
  criteria(id: string): Promise<FilterSpec> {
    return this.ask({ op: 'criteria', id }) as Promise<FilterSpec>;
  }

  /** Removes filter `id` on the other side. */
  uninstall(id: string): Promise<boolean> {
    return this.ask({ op: 'uninstall', id }) as Promise<boolean>;
  }
}

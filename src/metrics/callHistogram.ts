/**
 * The per-method latency histogram, exposed from CallStats accumulators: prom-client's Histogram
 * builds a label hash on every observation (about a quarter of a microsecond, a few percent of a
 * point lookup), so this one records nothing itself and renders the accumulators' buckets when
 * scraped, in prom-client's format, through the same registry.
 */
import type { Metric, Registry } from 'prom-client';
import type { CallStatsTable } from './callStats.js';

/** One exposition line: a series name, its labels and value (prom-client's metric value shape). */
interface Series {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

/**
 * A histogram metric with a `method` label over the calls of a CallStatsTable, registered in a prom-client registry.
 */
export class CallHistogram {
  /** The metric type the registry prints. */
  readonly type = 'histogram';
  /** How prom-client's cluster aggregation would combine workers' values. */
  readonly aggregator = 'sum';

  /**
   * Registers histogram `name` in `registry`. For exposition the registry reads a metric's name and
   * calls its get(), so this object stands in for a Histogram there (not for resetMetrics: the
   * values mirror the accumulators, which only grow, as all of this service's collected metrics).
   */
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly table: CallStatsTable,
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** The metric with its series: per method, cumulative buckets (`le`), then `_sum` and `_count`. */
  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Series[] }> {
    const values: Series[] = [];
    const { bounds } = this.table;
    for (const [method, stats] of this.table.byMethod) {
      let cumulative = 0;
      for (let i = 0; i < bounds.length; i++) {
        cumulative += stats.buckets[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { method, le: bounds[i]! }, value: cumulative });
      }
      values.push({ metricName: `${this.name}_bucket`, labels: { method, le: '+Inf' }, value: stats.count });
      values.push({ metricName: `${this.name}_sum`, labels: { method }, value: stats.sum });
      values.push({ metricName: `${this.name}_count`, labels: { method }, value: stats.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

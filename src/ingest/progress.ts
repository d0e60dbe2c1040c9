/**
 * Progress of a long generation or ingest on stderr: on a terminal, one bar redrawn in place with
 * the percentage, blocks/s, logs/s and the time left; otherwise (logs, CI) a plain line every few
 * seconds. finish() clears the bar; the command prints its own summary line, so there is one.
 */

/** Counters of the work done so far. */
export interface ProgressCounts {
  blocks: number;
  txs: number;
  logs: number;
}

/** Options of a progress reporter. */
export interface ProgressOptions {
  /** Whether anything is printed at all. */
  enabled: boolean;
  /** Where to print (default process.stderr). */
  stream?: NodeJS.WriteStream;
  /** What is being done, e.g. "generate". */
  label?: string;
  /** Seconds between plain lines when the stream is not a terminal (default 5). */
  intervalSeconds?: number;
  /** What the `logs` count counts, in the rate (default "logs"; an export counts rows). */
  rowUnit?: string;
}

const BAR_WIDTH = 28;
const REDRAW_MS = 100;

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

function formatRate(perSecond: number): string {
  if (perSecond >= 1e6) return (perSecond / 1e6).toFixed(2) + 'M';
  if (perSecond >= 1e4) return (perSecond / 1e3).toFixed(0) + 'k';
  return perSecond.toFixed(0);
}

/** Reports progress towards `total` blocks. */
export class Progress {
  private readonly stream: NodeJS.WriteStream;
  private readonly tty: boolean;
  private readonly label: string;
  private readonly intervalMs: number;
  private readonly started = performance.now();
  private lastPrint = -Infinity;
  private counts: ProgressCounts = { blocks: 0, txs: 0, logs: 0 };

  /** A reporter for `total` blocks. */
  constructor(
    private readonly total: number,
    private readonly options: ProgressOptions,
  ) {
    this.stream = options.stream ?? process.stderr;
    this.tty = this.stream.isTTY === true;
    this.label = options.label ?? 'progress';
    this.intervalMs = (options.intervalSeconds ?? 5) * 1000;
  }

  /** Seconds since the reporter was created. */
  elapsed(): number {
    return (performance.now() - this.started) / 1000;
  }

  /** Records the counts so far and prints when it is time to. */
  update(counts: ProgressCounts): void {
    this.counts = counts;
    if (!this.options.enabled) return;
    const now = performance.now();
    if (now - this.lastPrint < (this.tty ? REDRAW_MS : this.intervalMs)) return;
    this.lastPrint = now;
    if (this.tty) this.stream.write('\r' + this.line() + '\u001b[K');
    else this.stream.write(this.line() + '\n');
  }

  /**
   * Clears the bar on a terminal, so the command's summary line follows on a clean line, and returns the elapsed
   * seconds.
   */
  finish(): number {
    if (this.options.enabled && this.tty && this.lastPrint > -Infinity) this.stream.write('\r\u001b[K');
    return this.elapsed();
  }

  private line(): string {
    const { blocks, logs } = this.counts;
    const seconds = Math.max(this.elapsed(), 1e-9);
    const fraction = this.total > 0 ? Math.min(1, blocks / this.total) : 1;
    const blockRate = blocks / seconds;
    const eta = blockRate > 0 ? (this.total - blocks) / blockRate : Infinity;
    // Work counted in blocks alone (verify) shows no log rate.
    const unit = this.options.rowUnit ?? 'logs';
    const logRate = logs > 0 ? `  ${logs} ${unit}  ${formatRate(logs / seconds)} ${unit}/s` : '';
    const percent = (fraction * 100).toFixed(1).padStart(5);
    const stats = `${percent}%  ${formatRate(blockRate)} blocks/s${logRate}  ETA ${formatDuration(eta)}`;
    if (!this.tty) return `${this.label}: ${blocks}/${this.total} blocks ${stats}`;
    const filled = Math.round(fraction * BAR_WIDTH);
    return `${this.label} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${stats}`;
  }
}

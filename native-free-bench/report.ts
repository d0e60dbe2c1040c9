/**
 * The benchmark report: one table (figure, ours, baseline, ratio, target, met), the
 * results as JSON and an SVG chart under native-free-bench/results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { join } from 'node:path';

/**
 * A target of docs/architecture.md §7: the value must be at most or at least `value` (of ours, or of ours/baseline).
 */
export interface Target {
  kind: 'max' | 'min';
  value: number;
  /** Whether the target applies to the ratio ours/baseline rather than to ours. */
  ofRatio?: boolean;
  text: string;
}

/** One row of the table. */
export interface Row {
  figure: string;
  ours: number;
  unit: string;
  baseline?: number;
  baselineName?: string;
  target?: Target;
  /** Measurement notes (what bounds it, how many runs). */
  note?: string;
}

/** Series plotted in the chart: latency against range size, throughput against the transport ceiling. */
export interface ChartData {
  latencyByRange: { blocks: number; oursMs: number; oracleMs?: number }[];
  throughput: { name: string; rps: number }[];
}

/** Whether a row meets its target (undefined when it has none). */
export function met(row: Row): boolean | undefined {
  if (!row.target) return undefined;
  const value = row.target.ofRatio ? row.ours / row.baseline! : row.ours;
  return row.target.kind === 'max' ? value <= row.target.value : value >= row.target.value;
}

function fmt(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '';
  if (Math.abs(n) >= 1e6) return (n / 1e6).toFixed(2) + 'M';
  if (Math.abs(n) >= 1e4) return (n / 1e3).toFixed(1) + 'k';
  if (Math.abs(n) >= 100) return n.toFixed(0);
  return n.toFixed(2);
}

/** The machine line printed with the table. */
export function machine(): string {
  return (
    `${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown cpu'}), ` +
    `${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`
  );
}

/** Renders the table as Markdown (also readable on a terminal). */
export function table(rows: Row[]): string {
  const lines = [
    '| figure | ours | baseline | ratio | target | met |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => {
      const ratio =
        r.baseline === undefined || r.baseline === 0 || r.ours === 0
          ? ''
          : `${(r.baseline / r.ours >= 1 ? r.baseline / r.ours : r.ours / r.baseline).toFixed(2)}×`;
      const base = r.baseline === undefined ? '' : `${fmt(r.baseline)} ${r.unit} (${r.baselineName})`;
      const m = met(r);
      return (
        `| ${r.figure} | ${fmt(r.ours)} ${r.unit} | ${base} | ${ratio} | ` +
        `${r.target?.text ?? ''} | ${m === undefined ? '' : m ? 'yes' : 'no'} |`
      );
    }),
  ];
  return lines.join('\n');
}

function svg(chart: ChartData): string {
  const w = 760;
  const h = 300;
  const pad = 50;
  const half = (w - 3 * pad) / 2;
  const parts: string[] = [];
  const text = (x: number, y: number, s: string, anchor = 'middle', size = 11) =>
    `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" font-size="${size}" ` +
    `text-anchor="${anchor}" font-family="sans-serif">${s}</text>`;
  // Left: latency (log scale) against range size (log scale).
  const pts = chart.latencyByRange;
  if (pts.length > 0) {
    const xs = pts.map((p) => Math.log10(p.blocks));
    const ys = pts.flatMap((p) => [p.oursMs, p.oracleMs ?? p.oursMs]).map((v) => Math.log10(Math.max(v, 0.01)));
    const [x0, x1] = [Math.min(...xs) - 0.2, Math.max(...xs) + 0.2];
    const [y0, y1] = [Math.min(...ys) - 0.3, Math.max(...ys) + 0.3];
    const X = (v: number) => pad + ((Math.log10(v) - x0) / (x1 - x0)) * half;
    const Y = (v: number) => h - pad - ((Math.log10(Math.max(v, 0.01)) - y0) / (y1 - y0)) * (h - 2 * pad);
    parts.push(`<rect x="${pad}" y="${pad}" width="${half}" height="${h - 2 * pad}" fill="none" stroke="#999"/>`);
    const line = (key: 'oursMs' | 'oracleMs', color: string) => {
      const p = pts.filter((q) => q[key] !== undefined);
      parts.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2" points="` +
          `${p.map((q) => `${X(q.blocks)},${Y(q[key]!)}`).join(' ')}"/>`,
      );
      for (const q of p)
        parts.push(
          `<circle cx="${X(q.blocks)}" cy="${Y(q[key]!)}" r="3" fill="${color}"/>`,
          text(X(q.blocks), Y(q[key]!) - 7, `${fmt(q[key]!)} ms`, 'middle', 9),
        );
    };
    line('oracleMs', '#c0392b');
    line('oursMs', '#2471a3');
    for (const q of pts) parts.push(text(X(q.blocks), h - pad + 14, String(q.blocks)));
    parts.push(text(pad + half / 2, h - 10, 'eth_getLogs p50 latency (ms, log) by range (blocks, log)'));
    parts.push(text(pad + 5, pad - 8, '— ethlogd', 'start', 10).replace('<text', '<text fill="#2471a3"'));
    parts.push(text(pad + 80, pad - 8, '— oracle', 'start', 10).replace('<text', '<text fill="#c0392b"'));
  }
  // Right: requests/s bars.
  const bars = chart.throughput;
  if (bars.length > 0) {
    const left = 2 * pad + half;
    const max = Math.max(...bars.map((b) => b.rps));
    const bw = half / bars.length;
    parts.push(`<rect x="${left}" y="${pad}" width="${half}" height="${h - 2 * pad}" fill="none" stroke="#999"/>`);
    bars.forEach((b, i) => {
      const bh = (b.rps / max) * (h - 2 * pad - 10);
      const x = left + i * bw + bw * 0.15;
      parts.push(
        `<rect x="${x}" y="${h - pad - bh}" width="${bw * 0.7}" height="${bh}" fill="` +
          `${b.name.startsWith('bare') ? '#7f8c8d' : b.name.startsWith('anvil') ? '#c0392b' : '#2471a3'}"/>`,
      );
      parts.push(
        text(x + bw * 0.35, h - pad - bh - 4, fmt(b.rps), 'middle', 9),
        text(x + bw * 0.35, h - pad + 14, b.name, 'middle', 9),
      );
    });
    parts.push(text(left + half / 2, h - 10, 'requests/s over HTTP (same load generator)'));
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ` +
    `${h}"><rect width="100%" height="100%" fill="white"/>${parts.join('')}</svg>\n`
  );
}

/** One small chart: a figure's values against the chain length (both axes logarithmic). */
export interface Panel {
  title: string;
  unit: string;
  points: { blocks: number; value: number }[];
}

/** Charts in a row of panelsSvg: three fit a page's width. */
const PANELS_PER_ROW = 3;

/**
 * Panels side by side, PANELS_PER_ROW to a row: each figure's value against the chain length, with its values written
 * at its points.
 */
export function panelsSvg(panels: Panel[]): string {
  const [pw, ph, pad] = [300, 220, 46];
  const w = PANELS_PER_ROW * pw;
  const h = Math.ceil(panels.length / PANELS_PER_ROW) * ph;
  const parts: string[] = [];
  const text = (x: number, y: number, s: string, anchor = 'middle', size = 10) =>
    `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" font-size="${size}" ` +
    `text-anchor="${anchor}" font-family="sans-serif">${s}</text>`;
  panels.forEach((panel, i) => {
    const ox = (i % PANELS_PER_ROW) * pw;
    const oy = Math.floor(i / PANELS_PER_ROW) * ph;
    const pts = panel.points.filter((p) => p.value > 0 && Number.isFinite(p.value));
    parts.push(
      `<rect x="${ox + pad}" y="${oy + 30}" width="${pw - 1.5 * pad}" ` +
        `height="${ph - 30 - pad}" fill="none" stroke="#999"/>`,
    );
    parts.push(text(ox + pw / 2, oy + 18, `${panel.title} (${panel.unit})`, 'middle', 11));
    if (pts.length === 0) return;
    const xs = pts.map((p) => Math.log10(p.blocks));
    const ys = pts.map((p) => Math.log10(p.value));
    const [x0, x1] = [Math.min(...xs) - 0.3, Math.max(...xs) + 0.3];
    const [y0, y1] = [Math.min(...ys) - 0.4, Math.max(...ys) + 0.4];
    const X = (b: number) => ox + pad + ((Math.log10(b) - x0) / (x1 - x0)) * (pw - 1.5 * pad);
    const Y = (v: number) => oy + ph - pad - ((Math.log10(v) - y0) / (y1 - y0)) * (ph - 30 - pad);
    parts.push(
      '<polyline fill="none" stroke="#2471a3" stroke-width="2" points="' +
        `${pts.map((p) => `${X(p.blocks)},${Y(p.value)}`).join(' ')}"/>`,
    );
    for (const p of pts) {
      parts.push(
        `<circle cx="${X(p.blocks)}" cy="${Y(p.value)}" r="3" fill="#2471a3"/>`,
        text(X(p.blocks), Y(p.value) - 7, fmt(p.value), 'middle', 9),
      );
      parts.push(text(X(p.blocks), oy + ph - pad + 13, fmt(p.blocks), 'middle', 9));
    }
    parts.push(text(ox + pw / 2, oy + ph - pad + 26, 'blocks in the chain (log)', 'middle', 9));
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ` +
    `${h}"><rect width="100%" height="100%" fill="white"/>${parts.join('')}</svg>\n`
  );
}

/** Prints the table and writes results/<name>.json and results/<name>.svg. */
export function writeReport(
  dir: string,
  name: string,
  rows: Row[],
  chart: ChartData,
  extra: Record<string, unknown>,
): string {
  mkdirSync(dir, { recursive: true });
  const md = `Machine: ${machine()}\n\n${table(rows)}\n`;
  writeFileSync(
    join(dir, `${name}.json`),
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: machine(),
        rows: rows.map((r) => ({ ...r, met: met(r) })),
        chart,
        ...extra,
      },
      null,
      2,
    ) + '\n',
  );
  writeFileSync(join(dir, `${name}.svg`), svg(chart));
  writeFileSync(join(dir, `${name}.md`), md);
  return md;
}

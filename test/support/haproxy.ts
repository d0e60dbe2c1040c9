/**
 * A real HAProxy for the cluster test: found on PATH (Debian's `haproxy` package), run in the
 * foreground with the repository's deploy/haproxy.cfg as it is shipped, addresses given through its
 * environment variables; killed at the end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The shipped balancer configuration. */
export const HAPROXY_CONFIG = new URL('../../../deploy/haproxy.cfg', import.meta.url).pathname;

/** The haproxy executable on PATH, or undefined. */
export const HAPROXY_BIN: string | undefined = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => dir !== '')
  .map((dir) => join(dir, 'haproxy'))
  .find((path) => existsSync(path));

/** Why the HAProxy tests cannot run here, or false when haproxy is on PATH. */
export const HAPROXY_MISSING: string | false =
  HAPROXY_BIN === undefined
    ? 'haproxy is not on PATH: the cluster test did NOT run (Debian: ' +
      'apt-get install -y haproxy; make test-cluster requires it)'
    : false;

/** A running HAProxy. */
export class Haproxy {
  private stderr = '';

  private constructor(private readonly child: ChildProcess) {
    child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
  }

  /** Starts haproxy with deploy/haproxy.cfg, listening on `bind` in front of `replicas` (host:port each, three). */
  static start(bind: string, replicas: string[]): Haproxy {
    const env = {
      ...process.env,
      ETHLOGD_LB_BIND: bind,
      ...Object.fromEntries(replicas.map((r, i) => [`ETHLOGD_REPLICA${i + 1}`, r])),
    };
    return new Haproxy(
      spawn(HAPROXY_BIN!, ['-f', HAPROXY_CONFIG, '-db'], { env, stdio: ['ignore', 'ignore', 'pipe'] }),
    );
  }

  /** What haproxy wrote to stderr (its alerts and warnings). */
  output(): string {
    return this.stderr;
  }

  /** True while the process runs. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Kills haproxy and waits for it to exit. */
  async stop(): Promise<void> {
    if (!this.running) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await exited;
  }
}

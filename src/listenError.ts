/**
 * Why a front could not bind its port, said so an operator can act: the port, the system's reason,
 * and the option to change. Both fronts throw it; the CLI answers it with exit 2.
 */
import { createServer } from 'node:net';

/** What the system's bind errors mean for an operator. */
const REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the port is in use by another process',
  EACCES: 'binding this port needs privileges',
  EADDRNOTAVAIL: 'the address is not one of this machine',
};

/** A front could not listen on its host and port. */
export class PortUnavailableError extends Error {
  /**
   * Builds the error of `front` (e.g. "http", "grpc") on `host:port`, for the system `code` (e.g. EADDRINUSE) and
   * `option`, the option that sets the port.
   */
  constructor(
    readonly front: string,
    readonly host: string,
    readonly port: number,
    readonly code: string,
    option: string,
  ) {
    super(
      `${front}: cannot listen on ${host}:${port}: ${REASONS[code] ?? `the system refused it (${code})`} ` +
        `(choose another ${code === 'EADDRNOTAVAIL' ? '--host' : option})`,
    );
  }
}

/**
 * The system's reason (an errno name) that `host:port` cannot be bound now, learnt by binding it
 * with node:net (uWebSockets.js reports only that it failed); UNKNOWN when node:net can bind it.
 */
export function bindFailureCode(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'UNKNOWN'));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve('UNKNOWN')));
  });
}

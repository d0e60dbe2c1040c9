/**
 * Binding uWS apps to a port: exclusively (a port another socket holds is refused), or shared with
 * the apps of the service's other HTTP threads (SO_REUSEPORT, which uSockets sets unless told the
 * port is exclusive: the kernel then spreads new connections over the apps), and the check that a
 * port is free before the threads share it.
 */
import { bindFailureCode, PortUnavailableError } from '../listenError.js';
import { type TemplatedApp, type us_listen_socket, type us_socket, uWS } from './uws.js';

/** uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT: without it a busy port is shared (SO_REUSEPORT), not refused. */
const LISTEN_EXCLUSIVE_PORT = 1;

/** uSockets' LIBUS_LISTEN_DEFAULT: SO_REUSEPORT, so other apps (threads) can bind the same port. */
const LISTEN_SHARED_PORT = 0;

/** The `listen(host, port, options, cb)` overload, which uWS has but its typings lack. */
type ListenWithOptions = (
  host: string,
  port: number,
  options: number,
  cb: (socket: us_listen_socket | false) => void,
) => void;

/** A bound listen socket and the port it got. */
export interface Listening {
  socket: us_listen_socket;
  port: number;
}

/**
 * Makes `app` listen on `host:port` (0: a free port), exclusively unless `shared`; rejects with a PortUnavailableError
 * when it cannot.
 */
export async function listenOn(app: TemplatedApp, host: string, port: number, shared: boolean): Promise<Listening> {
  const listen = app.listen.bind(app) as unknown as ListenWithOptions;
  const socket = await new Promise<us_listen_socket | false>((resolve) =>
    listen(host, port, shared ? LISTEN_SHARED_PORT : LISTEN_EXCLUSIVE_PORT, resolve),
  );
  if (socket) return { socket, port: uWS.us_socket_local_port(socket as us_socket) };
  throw new PortUnavailableError('http', host, port, await bindFailureCode(host, port), '--port');
}

/**
 * Checks that no socket holds `host:port` by binding it exclusively and releasing it at once;
 * resolves with the port (the free one picked when `port` is 0), which the threads then bind
 * shared. Another process could take the port in the moment between, and the shared binds would
 * then fail (or, if it bound shared too, share it): a window of microseconds at start-up.
 */
export async function claimablePort(host: string, port: number): Promise<number> {
  const app = uWS.App();
  const probe = await listenOn(app, host, port, false);
  uWS.us_listen_socket_close(probe.socket);
  (app as { close?: () => void }).close?.();
  return probe.port;
}

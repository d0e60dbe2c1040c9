/**
 * The transport ceiling: a bare uWebSockets.js server that reads each POST body and answers a
 * constant JSON body of a given size. Run as a child process by the HTTP benchmark.
 *
 *   node dist/native-free-bench/bareServer.js BODY_BYTES   (prints "listening on PORT")
 */
import uWS from '@trufflesuite/uws-js-unofficial';

const size = Number(process.argv[2] ?? 1024);
const filler = 'x'.repeat(Math.max(0, size - 40));
const body = `{"jsonrpc":"2.0","id":1,"result":"${filler}"}`;

const app = uWS.App().post('/*', (res) => {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  res.onData((_chunk, last) => {
    if (!last || aborted) return;
    res.cork(() => {
      res.writeHeader('Content-Type', 'application/json');
      res.end(body);
    });
  });
});

app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) {
    console.error('cannot listen');
    process.exit(1);
  }
  console.log(`listening on ${uWS.us_socket_local_port(socket)}`);
});
process.on('SIGTERM', () => process.exit(0));

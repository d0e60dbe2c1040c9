/**
 * A StreamLogs call whose client never reads, for the tests of what the gRPC front does with one
 * (the stall timeout, shutdown): a raw HTTP/2 request with the call's one gRPC frame, paused, so its
 * flow-control window closes and the server's writes back up. grpc-js clients always read.
 */
import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { loadDefinition } from '#src/grpc/definition.js';

/** The request and its session (close the session when done). */
export interface UnreadStream {
  session: http2.ClientHttp2Session;
  stream: http2.ClientHttp2Stream;
}

/**
 * Opens a StreamLogs of blocks 0 to `toBlock` on the gRPC port at `host:port` with API key `key`, and never reads it.
 */
export function openUnreadStream(host: string, port: number, key: string, toBlock: number): UnreadStream {
  const EthLogs = (
    grpc.loadPackageDefinition(loadDefinition()) as unknown as {
      ethlogd: { v1: { EthLogs: grpc.ServiceClientConstructor } };
    }
  ).ethlogd.v1.EthLogs;
  const message = EthLogs.service.StreamLogs!.requestSerialize({
    filter: { fromBlock: { number: 0 }, toBlock: { number: toBlock } },
  });
  // A gRPC frame: not compressed (one zero byte), the message's length, the message.
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  const session = http2.connect(`http://${host}:${port}`);
  const stream = session.request({
    ':method': 'POST',
    ':path': '/ethlogd.v1.EthLogs/StreamLogs',
    'content-type': 'application/grpc',
    te: 'trailers',
    'x-api-key': key,
  });
  stream.end(frame);
  stream.pause();
  return { session, stream };
}

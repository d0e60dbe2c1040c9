/**
 * The contract between a transport front (HTTP, gRPC) and the JSON-RPC layer.
 */
import type { TooManyConcurrentError } from './errors.js';
import type { RequestTrace } from './observe.js';

/** A response body in one piece: JSON text, or JSON already encoded as UTF-8 bytes. */
export type FlatBody = string | Uint8Array;

/**
 * A large response body left in the pieces it was made of (a log answer's head, the chunks the
 * scans rendered, its tail), so that a front can write them to the socket one after the other
 * instead of copying megabytes into one buffer first; `length` is their total in bytes.
 */
export class JsonParts {
  private released = false;

  /**
   * `parts` of `length` bytes in all; `onRelease`, when given, is called once they are written or copied (release()).
   */
  constructor(
    readonly parts: readonly Uint8Array[],
    readonly length: number,
    private readonly onRelease?: () => void,
  ) {}

  /** Says the parts are written or copied: nothing reads them any more (once; later calls do nothing). */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.onRelease?.();
  }

  /**
   * The parts joined into one buffer (for a front that needs the body whole: compression, WebSocket frames), then
   * released.
   */
  join(): Uint8Array {
    const whole = Buffer.concat(this.parts as Uint8Array[], this.length);
    this.release();
    return whole;
  }
}

/** A response body: whole, or in parts (large log answers). */
export type RpcBody = FlatBody | JsonParts;

/** `body` in one piece: as it is, or its parts joined. */
export function flatBody(body: RpcBody): FlatBody {
  return body instanceof JsonParts ? body.join() : body;
}

/** What a front and the handler share about one request body beyond its bytes. */
export interface RequestControl {
  /**
   * Aborted when the client goes away: log queries waiting or running stop. A front may make it on
   * first read (a getter): an AbortController costs about 2 µs, a point lookup 5 to 50.
   */
  readonly signal?: AbortSignal;
  /** Whether the client went away already: a batch's calls not started are not run. */
  readonly gone?: boolean;
  /** Set by the handler when the body was one call refused for concurrency (the HTTP front answers 429). */
  busy?: TooManyConcurrentError;
}

/** Answers raw JSON-RPC request bodies (single or batch) with response bodies. */
export interface RpcHandler {
  /**
   * Handles one request body; synchronous answers come back directly, others as a promise. With a
   * trace, every call of the body is noted in it as it is answered (the request log); `caller` is
   * the API key the body came with; `control`, what the front and the handler share about it.
   */
  handle(body: Uint8Array, trace?: RequestTrace, caller?: string, control?: RequestControl): RpcBody | Promise<RpcBody>;
}

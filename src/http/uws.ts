/**
 * Loads uWebSockets.js and tells which build loaded: the native addon, or the package's `ws`-based
 * JavaScript fallback (taken when the binary does not match this Node.js).
 */
import uWS from '@trufflesuite/uws-js-unofficial';

/** uWS's request, response, app and socket types. */
export type {
  HttpRequest,
  HttpResponse,
  TemplatedApp,
  us_listen_socket,
  us_socket,
  WebSocket,
} from '@trufflesuite/uws-js-unofficial';

/** The loaded uWebSockets.js module. */
export { uWS };

/** Which implementation loaded: the native addon's functions print as `[native code]`. */
export const uwsImplementation: 'native' | 'fallback' = uWS.App.toString().includes('[native code]')
  ? 'native'
  : 'fallback';

/** True when the native addon loaded (tryEnd, onWritable and endWithoutBody exist only there). */
export const uwsNative = uwsImplementation === 'native';

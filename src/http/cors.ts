/**
 * CORS: every response allows any origin (the API key, not the origin, is the credential), and
 * preflight requests are answered for POST with any requested headers.
 */
import type { HttpResponse } from './uws.js';
import { uwsNative } from './uws.js';

/** Seconds a browser may cache a preflight answer. */
const PREFLIGHT_MAX_AGE_S = '86400';

/** Headers allowed when the preflight names none. */
const DEFAULT_ALLOWED_HEADERS = 'Content-Type';

/**
 * The header every response carries, name and value as bytes (uWS copies a string argument into a fresh allocation
 * first).
 */
const ALLOW_ORIGIN = Buffer.from('Access-Control-Allow-Origin');
const ANY_ORIGIN = Buffer.from('*');

/** Writes the header every response carries. */
export function writeCorsOrigin(res: HttpResponse): void {
  res.writeHeader(ALLOW_ORIGIN, ANY_ORIGIN);
}

/** Answers a preflight with 204, echoing `requestedHeaders` (the Access-Control-Request-Headers value). */
export function answerPreflight(res: HttpResponse, requestedHeaders: string): void {
  res.cork(() => {
    res.writeStatus('204 No Content');
    writeCorsOrigin(res);
    res.writeHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.writeHeader(
      'Access-Control-Allow-Headers',
      requestedHeaders === '' ? DEFAULT_ALLOWED_HEADERS : requestedHeaders,
    );
    res.writeHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_S);
    res.writeHeader('Vary', 'Access-Control-Request-Headers');
    if (uwsNative) res.endWithoutBody();
    else res.end();
  });
}

import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { LoreError } from '../contract/errors';
import { envelope } from './errors';

/**
 * How much of a refused request body Lore reads (and throws away) before it answers. A body over
 * LORE_BODY_LIMIT, or one refused before it was read (a foreign Host, a non-JSON type), is answered
 * early; if Lore then closed the connection while the client was still sending, the kernel would
 * reset it and the client would see EPIPE or ECONNRESET instead of the answer. So the rest of the
 * body is read first, up to this bound; a client that sends more than that gets the answer and a
 * closed connection.
 */
export const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

/** The request says it has a body: a length above zero, or a transfer encoding (chunked). */
export function declaresBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (typeof length === 'string' && length.trim() !== '0');
}

/**
 * Resolves once the request's body has been received whole (true), or when more than `limit`
 * bytes were thrown away or the request failed (false: the connection should not be reused).
 * Resolves at once for a body already read.
 */
export function discardRest(req: IncomingMessage, limit = DISCARD_LIMIT_BYTES): Promise<boolean> {
  if (!declaresBody(req.headers) || req.complete || req.readableEnded || req.destroyed) return Promise.resolve(!req.destroyed);
  return new Promise((resolve) => {
    let seen = 0;
    const done = (whole: boolean) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      resolve(whole);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limit) {
        req.pause();
        done(false);
      }
    };
    const onEnd = () => done(true);
    const onError = () => done(false);
    const onClose = () => done(req.complete);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
    req.resume();
  });
}

/** Sockets already answered: after a parse error Node reports the error again for every later chunk. */
const answered = new WeakSet<Duplex>();
/** How long a socket whose request could not be parsed is read from, at most, before it is closed. */
const CLIENT_ERROR_LINGER_MS = 10_000;

/**
 * Fastify's clientErrorHandler: a request Node's HTTP parser refused (a request line and headers
 * over its limit, a malformed request, one not received in time) gets the error envelope with
 * `connection: close`, like every other refusal. Node's and Fastify's own answers wrote a body of
 * their own and destroyed the socket at once, which reset a client still sending its headers.
 * Here the socket is half-closed after the answer and read to its end (up to DISCARD_LIMIT_BYTES
 * or CLIENT_ERROR_LINGER_MS), so the client reads the answer.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  if (err.code === 'ECONNRESET' || socket.destroyed) {
    socket.destroy();
    return;
  }
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new LoreError('headers_too_large', `the request line and headers are larger than ${Math.round(maxHeaderSize / 1024)} KiB: send long values in a JSON body`, {
          limit_bytes: maxHeaderSize,
        })
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new LoreError('request_timeout', 'the request was not received in time')
        : new LoreError('invalid_request', `the request is not valid HTTP (${err.code ?? 'parse error'})`);
  const requestId = randomUUID();
  const body = JSON.stringify(envelope(error, requestId));
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    socket.write(
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.end();
  // Stop feeding Node's parser (it would report this error again for every chunk) and read the rest away.
  socket.removeAllListeners('data');
  let seen = 0;
  const timer = setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS);
  timer.unref();
  socket.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DISCARD_LIMIT_BYTES) socket.destroy();
  });
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  socket.resume();
}

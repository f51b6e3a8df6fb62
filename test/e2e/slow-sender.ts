/**
 * A sender that writes a request's head and then its body slowly, or not at all, over a raw socket,
 * the way an attacker holding connections open does; fetch cannot answer "was I answered before I
 * sent the body?".
 */
import { connect } from 'node:net';

export interface SlowSend {
  /** The status line's code, or undefined when the connection closed unanswered. */
  status: number | undefined;
  headers: Record<string, string>;
  body: string;
  /** Body bytes written before the answer came (or the connection closed). */
  sentBeforeAnswer: number;
}

export interface SlowSendOptions {
  method?: string;
  headers: Record<string, string>;
  /** Body bytes to send in all; 0 sends the head alone and waits for the answer. */
  bodyBytes: number;
  chunkBytes?: number;
  /** Pause between chunks. */
  intervalMs?: number;
  /** Frame the body in chunked transfer encoding (no length declared). */
  chunked?: boolean;
}

/** Sends `path` to the server at `url` and resolves once the server answered and closed, or closed. */
export function slowSend(url: string, path: string, options: SlowSendOptions): Promise<SlowSend> {
  const { hostname, port } = new URL(url);
  const chunk = Buffer.alloc(options.chunkBytes ?? 16 * 1024, 0x20);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let reply = '';
    let sent = 0;
    let sentBeforeAnswer: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    const head = Object.entries({ host: `${hostname}:${port}`, ...options.headers })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(`${options.method ?? 'POST'} ${path} HTTP/1.1\r\n${head}\r\n`);
    const writeMore = () => {
      if (socket.destroyed || sentBeforeAnswer !== undefined || sent >= options.bodyBytes) return;
      const piece = chunk.subarray(0, Math.min(chunk.length, options.bodyBytes - sent));
      sent += piece.length;
      socket.write(
        options.chunked
          ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
          : piece,
      );
      timer = setTimeout(writeMore, options.intervalMs ?? 100);
    };
    socket.on('connect', writeMore);
    socket.on('data', (data: Buffer) => {
      sentBeforeAnswer ??= sent;
      reply += data.toString('latin1');
    });
    // The server may close while we still write: the reset is the expected end, not a failure.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const [headText = '', body = ''] = reply.split('\r\n\r\n');
      const [statusLine = '', ...lines] = headText.split('\r\n');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1];
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({
        status: status ? Number(status) : undefined,
        headers,
        body,
        sentBeforeAnswer: sentBeforeAnswer ?? sent,
      });
    });
  });
}

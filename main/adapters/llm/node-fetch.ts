/**
 * A `fetch` over node:http for the OpenAI SDK's plain (non-streaming) calls.
 *
 * Node's built-in fetch (undici) turns every request and answer into web streams, clones and
 * tees them, and writes the body as an async iterable: about a millisecond of main-thread CPU
 * per call, which the DAG cannot afford with ten calls in flight at 50 ms each (issue 4). This
 * sends the body in one write on a keep-alive connection and hands the SDK a Response built
 * from the buffered answer. Anything it does not cover (a body that is not a string, another
 * protocol) goes to the built-in fetch; streaming calls keep using the built-in fetch as well.
 *
 * Failures keep the shapes the adapter maps: a failed connection rejects (the SDK calls that a
 * connection error), an abort rejects with the signal's AbortError, and an answer cut off
 * after its headers yields a Response whose body read fails with the socket's error, as
 * undici's does, so it is still "the connection failed mid-response".
 *
 * @example
 * const client = new OpenAI({ apiKey, baseURL, fetch: createNodeFetch() });
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

export function createNodeFetch(): typeof fetch {
  // Idle keep-alive sockets are unref'd by the agents, so they never hold the process open.
  const http = new HttpAgent({ keepAlive: true });
  const https = new HttpsAgent({ keepAlive: true });

  const nodeFetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const body = init.body;
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : null;
    if (href === null || (body !== undefined && body !== null && typeof body !== 'string')) return fetch(input, init);
    const url = new URL(href);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return fetch(input, init);
    const method = (init.method ?? 'GET').toUpperCase();
    const secure = url.protocol === 'https:';
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();

    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = (secure ? httpsRequest : httpRequest)(url, { method, headers: headersOf(init.headers), agent: secure ? https : http, ...(signal ? { signal } : {}) }, resolve);
      req.on('error', reject);
      req.end(body ?? undefined);
    });

    const chunks: Buffer[] = [];
    let failure: unknown;
    try {
      for await (const chunk of res) chunks.push(chunk as Buffer);
    } catch (error) {
      // Aborted by our own signal: reject like fetch does. Cut off by the server: see below.
      if (signal?.aborted) throw signal.reason ?? error;
      failure = error;
    }
    const headers = new Headers();
    for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    const status = res.statusCode ?? 0;
    const noBody = method === 'HEAD' || status === 204 || status === 205 || status === 304;
    if (noBody || failure !== undefined) return new Response(noBody ? null : failingStream(failure), { status, statusText: res.statusMessage ?? '', headers });
    return bufferedResponse(decoded(Buffer.concat(chunks), headers), { status, statusText: res.statusMessage ?? '', headers });
  };
  return nodeFetch as typeof fetch;
}

/**
 * The body as the server meant it. No Accept-Encoding is sent, so servers answer uncompressed;
 * a proxy that compresses anyway must not hand the SDK bytes it cannot parse.
 */
function decoded(bytes: Buffer, headers: Headers): Buffer {
  const encoding = headers.get('content-encoding')?.trim().toLowerCase();
  if (!encoding || encoding === 'identity') return bytes;
  if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(bytes);
  if (encoding === 'deflate') return inflateSync(bytes);
  if (encoding === 'br') return brotliDecompressSync(bytes);
  return bytes;
}

function headersOf(init: RequestInit['headers']): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  if (!init) return out;
  if (init instanceof Headers) init.forEach((value, name) => (out[name] = value));
  else if (Array.isArray(init)) for (const [name, value] of init) out[name!.toLowerCase()] = value;
  else for (const [name, value] of Object.entries(init as Record<string, string>)) out[name.toLowerCase()] = value;
  return out;
}

/**
 * A Response over a body already in memory. A Response made with a body wraps it in a web
 * stream (another ~0.1 ms per call); this one is made without and reads the buffer itself,
 * which is all the SDK does with a plain answer (json(), text(); `body` is null).
 */
function bufferedResponse(bytes: Buffer, init: ResponseInit): Response {
  const response = new Response(null, init);
  const text = async () => new TextDecoder().decode(bytes);
  Object.defineProperties(response, {
    text: { value: text },
    json: { value: async () => JSON.parse(await text()) as unknown },
    arrayBuffer: { value: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
  });
  return response;
}

/** A body whose read fails with `error`: an answer the connection dropped after its headers. */
function failingStream(error: unknown): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.error(error);
    },
  });
}

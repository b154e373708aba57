// What every Node.js peer shares: the command line, the contract's bodies as prebuilt
// Buffers, the query echo, the ready line and the signal handling. Each peer file (http.js,
// cluster.js, express.js, fastify.js, koa.js) is then only its framework's way of routing.
'use strict';

const { timingSafeEqual } = require('node:crypto');

const CT_JSON = 'application/json';
const CT_TEXT = 'text/plain; charset=utf-8';

// The contract's fixed bodies (docs/contract.md, "Endpoints"), built once.
const BODIES = {
  hello: Buffer.from('{"message":"Hello World"}'),
  root: Buffer.alloc(1024, '.'),
  helloText: Buffer.from('Hello, World'),
  unauthorized: Buffer.from('{"error":"Unauthorized"}'),
  async: Buffer.from('{"code":200,"msg":"success","data":"async"}'),
  nexttick: Buffer.from('{"code":200,"msg":"nexttick"}'),
  timer: Buffer.from('{"code":200,"msg":"timer"}'),
};

// The paths every Node peer serves (each framework adds its own extras).
const PATHS = ['/', '/api/hello', '/hello', '/my/ip', '/api'];

function usage(name, extra) {
  process.stderr.write(`${name}: usage: node peers/node/${name}.js --addr HOST:PORT${extra || ''}\n`);
  process.exit(2);
}

// `--addr HOST:PORT` (IPv6 as [::1]:PORT) and `--workers N` (where the peer has workers).
function parseArgs(name, { workers = false } = {}) {
  const out = { host: '127.0.0.1', port: 8080, workers: 0 };
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const v = args[i + 1];
    if (a === '--addr' && v !== undefined) {
      const m = /^\[?([^\]]*?)\]?:(\d{1,5})$/.exec(v);
      if (!m || Number(m[2]) > 65535) usage(name, workers ? ' [--workers N]' : '');
      out.host = m[1];
      out.port = Number(m[2]);
      i++;
    } else if (workers && a === '--workers' && v !== undefined && /^\d+$/.test(v) && Number(v) > 0) {
      out.workers = Number(v);
      i++;
    } else {
      usage(name, workers ? ' [--workers N]' : '');
    }
  }
  return out;
}

// The ready line, once: `listening on http://HOST:PORT` with the real port.
function announce(address) {
  const v6 = address.family === 'IPv6' || address.family === 6 || address.addressType === 6;
  const host = v6 ? `[${address.address}]` : address.address;
  process.stdout.write(`listening on http://${host}:${address.port}\n`);
}

// A listen error is one line on stderr and exit 2 (port taken, bad address).
function listenFailed(name, err) {
  process.stderr.write(`${name}: cannot listen: ${err.message}\n`);
  process.exit(2);
}

// SIGINT/SIGTERM: stop accepting, let in-flight requests finish (at most 5 s), exit 0.
function exitOnSignals(server) {
  const stop = () => {
    server.close(() => process.exit(0));
    if (server.closeIdleConnections) server.closeIdleConnections();
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

// The client's address as text; an IPv4-mapped IPv6 address shown as IPv4.
function clientIp(socket) {
  const ip = socket.remoteAddress || '';
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

// The query echo's text from URLSearchParams (the WHATWG form decoding: `+` is a space,
// malformed `%` stays, bytes that are not UTF-8 become U+FFFD, the first value counts).
function heyFromQuery(query) {
  const params = new URLSearchParams(query);
  return `Hey ${params.get('name') ?? ''} ${params.get('lastname') ?? ''}`;
}

// The first value of a framework's parsed query field (a string, an array, or missing).
function first(v) {
  if (Array.isArray(v)) return first(v[0]);
  return typeof v === 'string' ? v : '';
}

// The path of a request target as sent: the part before `?`, and for an absolute-form target
// (`http://host/p`) its path.
function pathOf(url) {
  const q = url.indexOf('?');
  const p = q === -1 ? url : url.slice(0, q);
  if (p.charCodeAt(0) === 47 /* / */) return p;
  const m = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/]*(\/.*)?$/.exec(p);
  return m ? m[1] || '/' : p;
}

const TOKEN = Buffer.from(`Bearer ${process.env.AUTH_TOKEN || 'bench-token'}`);

// The Bearer check of /api/private: exactly one Authorization field equal to `Bearer TOKEN`,
// compared in constant time. `rawHeaders` is node's flat [name, value, …] list.
function authorized(rawHeaders) {
  let value;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].length === 13 && rawHeaders[i].toLowerCase() === 'authorization') {
      if (value !== undefined) return false;
      value = rawHeaders[i + 1];
    }
  }
  if (value === undefined) return false;
  const got = Buffer.from(value, 'latin1');
  return got.length === TOKEN.length && timingSafeEqual(got, TOKEN);
}

module.exports = {
  CT_JSON,
  CT_TEXT,
  BODIES,
  PATHS,
  parseArgs,
  announce,
  listenFailed,
  exitOnSignals,
  clientIp,
  heyFromQuery,
  first,
  pathOf,
  authorized,
};

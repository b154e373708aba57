// Bare node:http, tuned the way E3's article tunes it: every fixed answer's body a prebuilt
// Buffer and its header list prebuilt (writeHead with a flat array skips node's header
// object), keep-alive kept 65 s (the contract keeps idle connections at least 60 s), no
// per-request allocation beyond what node:http itself does. Also E4's event-loop scenarios,
// and their remedy: /api/sync-offload runs the same loop on a pool of worker_threads.
//
//   node peers/node/http.js --addr 127.0.0.1:3000 [--workers N]
//
// --workers N: the size of the sync-offload pool (default: the CPUs this process may use
// less one, at least 1); the pool starts at the first /api/sync-offload request.
//
// node:http adds `Connection: keep-alive` and `Keep-Alive: timeout=65` to every HTTP/1.1
// keep-alive answer; servers.toml records both as extra header fields.
'use strict';

const http = require('node:http');
const os = require('node:os');
const { Worker } = require('node:worker_threads');
const c = require('./common');

// [status, flat header list, body] for each fixed answer.
function fixed(status, type, body) {
  const headers = type ? ['content-type', type, 'content-length', String(body.length)] : ['content-length', '0'];
  return [status, headers, body];
}
const HELLO = fixed(200, c.CT_JSON, c.BODIES.hello);
const ROOT = fixed(200, c.CT_TEXT, c.BODIES.root);
const HELLO_TEXT = fixed(200, c.CT_TEXT, c.BODIES.helloText);
const ASYNC = fixed(200, c.CT_JSON, c.BODIES.async);
const NEXTTICK = fixed(200, c.CT_JSON, c.BODIES.nexttick);
const TIMER = fixed(200, c.CT_JSON, c.BODIES.timer);
const NOT_FOUND = [404, ['content-length', '0'], undefined];
const NOT_ALLOWED = [405, ['allow', 'GET, HEAD', 'content-length', '0'], undefined];

function send(res, [status, headers, body]) {
  res.writeHead(status, headers);
  res.end(body);
}

function text(res, s) {
  const body = Buffer.from(s);
  res.writeHead(200, ['content-type', c.CT_TEXT, 'content-length', String(body.length)]);
  res.end(body);
}

// E4: 10,000,000 additions on the event-loop thread, blocking it (~15 ms).
function syncSum() {
  let sum = 0;
  for (let i = 0; i < 10_000_000; i++) sum += i;
  return sum;
}

// E4's remedy: the same loop in a worker thread. Each worker answers every message with the
// sum; the loop is syncSum's, so the body is /api/sync's to the byte.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
${syncSum.toString()}
parentPort.on('message', () => parentPort.postMessage(syncSum()));
`;

// A fixed pool of workers: a job goes to an idle worker, or waits in a queue for the first
// one to finish. Started lazily, so a server that is never asked for /api/sync-offload runs
// no threads (E3's and E5's memory figures stay those of one event loop).
class Pool {
  constructor(size) {
    this.size = size;
    this.idle = [];
    this.queue = [];
    this.started = false;
  }

  start() {
    this.started = true;
    for (let i = 0; i < this.size; i++) this.spawn();
  }

  spawn() {
    const w = new Worker(WORKER_SOURCE, { eval: true });
    w.unref(); // the workers never keep the process from exiting on a signal
    w.on('message', (sum) => {
      const done = w.job;
      w.job = undefined;
      this.ready(w);
      done(sum);
    });
    w.on('error', (err) => {
      process.stderr.write(`http: sync-offload worker failed: ${err}\n`);
      // Its job is answered by a replacement.
      const job = w.job;
      w.job = undefined;
      if (job !== undefined) this.queue.unshift(job);
      this.spawn();
    });
    this.ready(w);
  }

  ready(w) {
    const job = this.queue.shift();
    if (job === undefined) {
      this.idle.push(w);
    } else {
      w.job = job;
      w.postMessage(0);
    }
  }

  // Calls `done(sum)` when a worker has computed the sum.
  run(done) {
    if (!this.started) this.start();
    const w = this.idle.pop();
    if (w === undefined) {
      this.queue.push(done);
    } else {
      w.job = done;
      w.postMessage(0);
    }
  }
}

let pool;

function sumBody(sum) {
  return Buffer.from(`{"code":200,"data":${sum}}`);
}

function sendSum(res, sum) {
  if (res.destroyed || res.socket === null) return; // the client left while it ran
  const body = sumBody(sum);
  res.writeHead(200, ['content-type', c.CT_JSON, 'content-length', String(body.length)]);
  res.end(body);
}

// E4: 1,000 recursively chained process.nextTick callbacks, then the answer.
function nextTicks(res) {
  let n = 0;
  const tick = () => {
    if (++n < 1000) process.nextTick(tick);
    else send(res, NEXTTICK);
  };
  process.nextTick(tick);
}

const noop = () => {};

const ROUTES = new Map([
  ['/', (req, res) => send(res, ROOT)],
  ['/api/hello', (req, res) => send(res, HELLO)],
  ['/hello', (req, res) => send(res, HELLO_TEXT)],
  ['/my/ip', (req, res) => text(res, c.clientIp(req.socket))],
  [
    '/api',
    (req, res) => {
      const q = req.url.indexOf('?');
      text(res, c.heyFromQuery(q === -1 ? '' : req.url.slice(q + 1)));
    },
  ],
  ['/api/async', (req, res) => setTimeout(send, 10, res, ASYNC)],
  ['/api/sync', (req, res) => sendSum(res, syncSum())],
  ['/api/sync-offload', (req, res) => pool.run((sum) => sendSum(res, sum))],
  ['/api/nexttick', (req, res) => nextTicks(res)],
  [
    '/api/timer',
    (req, res) => {
      for (let i = 0; i < 200; i++) setTimeout(noop, 0);
      send(res, TIMER);
    },
  ],
]);

function handle(req, res) {
  const route = ROUTES.get(c.pathOf(req.url));
  if (route === undefined) return send(res, NOT_FOUND);
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, NOT_ALLOWED);
  route(req, res);
}

// Starts the server on `host:port`; calls `ready(address)` once it listens, `failed(err)` if
// it cannot.
// `workers` is the size of the sync-offload pool (0: the CPUs this process may use less one,
// at least 1).
function serve(host, port, ready, failed = (err) => c.listenFailed('http', err), workers = 0) {
  pool = new Pool(workers || Math.max(1, os.availableParallelism() - 1));
  const server = http.createServer({ noDelay: true }, handle);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.on('error', failed);
  server.listen({ host, port, backlog: 4096 }, () => ready(server.address()));
  c.exitOnSignals(server);
  return server;
}

if (require.main === module) {
  const { host, port, workers } = c.parseArgs('http', { workers: true });
  serve(host, port, c.announce, undefined, workers);
}

module.exports = { serve };

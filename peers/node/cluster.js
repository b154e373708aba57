// node:cluster, E5's "node cluster": a primary that forks one node:http worker (http.js) per
// CPU, or --workers N. The workers share one listening socket through the primary (node's
// default round-robin hand-off on Linux). The primary prints the ready line once every worker
// listens, forwards SIGINT/SIGTERM to the workers and exits 0 when they have exited.
//
//   node peers/node/cluster.js --addr 127.0.0.1:3000 [--workers N]
'use strict';

const cluster = require('node:cluster');
const os = require('node:os');
const c = require('./common');

if (cluster.isPrimary) {
  const { host, port, workers } = c.parseArgs('cluster', { workers: true });
  const n = workers || os.availableParallelism();
  cluster.setupPrimary({ args: ['--worker', host, String(port)] });
  let listening = 0;
  let stopping = false;
  cluster.on('listening', (worker, address) => {
    if (++listening === n) c.announce({ ...address, address: address.address || host });
  });
  cluster.on('message', (worker, msg) => {
    if (msg && msg.listenFailed && !stopping) {
      // A worker that cannot listen (port taken, bad address): one line, exit 2.
      process.stderr.write(`cluster: cannot listen: ${msg.listenFailed}\n`);
      stopping = true;
      for (const w of Object.values(cluster.workers)) w.process.kill('SIGTERM');
      process.exit(2);
    }
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers).length === 0) process.exit(0);
      return;
    }
    if (listening < n) {
      // A worker that dies before listening (port taken): one line, exit 2.
      process.stderr.write(`cluster: worker exited before listening (${signal || code})\n`);
      stopping = true;
      for (const w of Object.values(cluster.workers)) w.process.kill('SIGTERM');
      process.exit(2);
    }
    cluster.fork(); // keep N workers, as a cluster supervisor does
  });
  const stop = () => {
    stopping = true;
    const alive = Object.values(cluster.workers);
    if (alive.length === 0) process.exit(0);
    for (const w of alive) w.process.kill('SIGTERM');
    setTimeout(() => process.exit(0), 6000).unref();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  for (let i = 0; i < n; i++) cluster.fork();
} else {
  const [, , , host, port] = process.argv;
  require('./http').serve(
    host,
    Number(port),
    () => {},
    (err) => process.send({ listenFailed: err.message }, () => process.exit(2)),
  );
}

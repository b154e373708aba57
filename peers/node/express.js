// Express 5 as E1 and E2 run it: express.json() globally (E1), x-powered-by off (E2), one
// app.get per endpoint answering prebuilt Buffers with res.send, the Bearer-token middleware
// on /api/private (E1: 401 {"error":"Unauthorized"}), app.all for the 405s and a catch-all
// 404 with an empty body instead of finalhandler's HTML page.
//
//   node peers/node/express.js --addr 127.0.0.1:3000
//
// etag is also turned off (app.set('etag', false)): Express would add an ETag to every
// res.send body, which the contract does not allow and Express lets us stop. node:http adds
// `Connection: keep-alive` and `Keep-Alive: timeout=5` (servers.toml records both).
'use strict';

const express = require('express');
const c = require('./common');

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
// The contract matches paths byte for byte: no case folding, no optional trailing slash.
app.set('case sensitive routing', true);
app.set('strict routing', true);
app.use(express.json());

// res.type() and res.set() turn `application/json` into `application/json; charset=utf-8`;
// node's own setHeader keeps the contract's value, and res.send leaves a set type alone.
const ok = (type, body) => (req, res) => {
  res.setHeader('content-type', type);
  res.send(body);
};
const text = (res, s) => {
  res.setHeader('content-type', c.CT_TEXT);
  res.send(Buffer.from(s));
};

function bearer(req, res, next) {
  if (c.authorized(req.rawHeaders)) return next();
  res.status(401).setHeader('content-type', c.CT_JSON);
  res.send(c.BODIES.unauthorized);
}

app.get('/', ok(c.CT_TEXT, c.BODIES.root));
app.get('/api/hello', ok(c.CT_JSON, c.BODIES.hello));
app.get('/hello', ok(c.CT_TEXT, c.BODIES.helloText));
app.get('/my/ip', (req, res) => text(res, c.clientIp(req.socket)));
app.get('/api', (req, res) => text(res, `Hey ${c.first(req.query.name)} ${c.first(req.query.lastname)}`));
app.get('/api/private', bearer, ok(c.CT_JSON, c.BODIES.hello));

const notAllowed = (req, res) => res.status(405).set({ allow: 'GET, HEAD', 'content-length': '0' }).end();
for (const p of [...c.PATHS, '/api/private']) app.all(p, notAllowed);
app.use((req, res) => res.status(404).set('content-length', '0').end());

const { host, port } = c.parseArgs('express');
const server = app.listen(port, host, (err) => {
  if (err) c.listenFailed('express', err);
  c.announce(server.address());
});
c.exitOnSignals(server);

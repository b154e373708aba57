// Fastify 5 as E1 runs it: logger off, one route per endpoint (find-my-way), replies of
// prebuilt Buffers with their content type, an onRequest hook with the Bearer check on
// /api/private (E1's authentication middleware: 401 {"error":"Unauthorized"}), the 405s as
// routes of every other method, and a not-found handler with an empty body.
//
//   node peers/node/fastify.js --addr 127.0.0.1:3000
//
// node:http adds `Connection: keep-alive` and `Keep-Alive: timeout=72` (Fastify's default
// keepAliveTimeout, 72 s); servers.toml records both.
'use strict';

const fastify = require('fastify');
const c = require('./common');

const app = fastify({ logger: false });

const ok = (type, body) => (req, reply) => {
  reply.type(type).send(body);
};
const text = (reply, s) => reply.type(c.CT_TEXT).send(Buffer.from(s));

app.get('/', ok(c.CT_TEXT, c.BODIES.root));
app.get('/api/hello', ok(c.CT_JSON, c.BODIES.hello));
app.get('/hello', ok(c.CT_TEXT, c.BODIES.helloText));
app.get('/my/ip', (req, reply) => {
  text(reply, c.clientIp(req.raw.socket));
});
app.get('/api', (req, reply) => {
  text(reply, `Hey ${c.first(req.query.name)} ${c.first(req.query.lastname)}`);
});
app.get(
  '/api/private',
  {
    onRequest(req, reply, done) {
      if (c.authorized(req.raw.rawHeaders)) return done();
      reply.code(401).type(c.CT_JSON).send(c.BODIES.unauthorized);
    },
  },
  ok(c.CT_JSON, c.BODIES.hello),
);

const OTHER = ['DELETE', 'OPTIONS', 'PATCH', 'POST', 'PUT'];
for (const url of [...c.PATHS, '/api/private']) {
  app.route({
    method: OTHER,
    url,
    handler(req, reply) {
      reply.code(405).header('allow', 'GET, HEAD').header('content-length', '0').send();
    },
  });
}
app.setNotFoundHandler((req, reply) => {
  reply.code(404).header('content-length', '0').send();
});

const { host, port } = c.parseArgs('fastify');
app.listen({ host, port, backlog: 4096 }, (err) => {
  if (err) c.listenFailed('fastify', err);
  c.announce(app.server.address());
});
const stop = () => {
  app.close().then(() => process.exit(0));
  setTimeout(() => process.exit(0), 5000).unref();
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

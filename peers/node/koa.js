// Koa 3 with @koa/router as E1 runs it: async middleware, router.get per endpoint answering
// prebuilt Buffers, the Bearer-token middleware on /api/private (E1: 401
// {"error":"Unauthorized"}), router.allowedMethods() for the 405s (its `Allow` field set to the
// contract's `GET, HEAD`), and an empty 404 for unknown paths.
//
//   node peers/node/koa.js --addr 127.0.0.1:3000
//
// node:http adds `Connection: keep-alive` and `Keep-Alive: timeout=5`; servers.toml records
// both.
'use strict';

const Koa = require('koa');
const Router = require('@koa/router');
const c = require('./common');

const app = new Koa();
// The contract matches paths byte for byte: no case folding, no optional trailing slash.
const router = new Router({ sensitive: true, strict: true });

// ctx.type = 'application/json' would become `application/json; charset=utf-8`; ctx.set
// keeps the contract's value, and a Buffer body leaves a set type alone.
const ok = (type, body) => (ctx) => {
  ctx.set('content-type', type);
  ctx.body = body;
};
const text = (ctx, s) => {
  ctx.set('content-type', c.CT_TEXT);
  ctx.body = Buffer.from(s);
};
// An answer without a body (Koa would write the status message as text/plain).
const empty = (ctx, status) => {
  ctx.body = '';
  ctx.status = status;
  ctx.remove('content-type');
};

async function bearer(ctx, next) {
  if (c.authorized(ctx.req.rawHeaders)) return next();
  ctx.status = 401;
  ctx.set('content-type', c.CT_JSON);
  ctx.body = c.BODIES.unauthorized;
}

router.get('/', ok(c.CT_TEXT, c.BODIES.root));
router.get('/api/hello', ok(c.CT_JSON, c.BODIES.hello));
router.get('/hello', ok(c.CT_TEXT, c.BODIES.helloText));
router.get('/my/ip', (ctx) => text(ctx, c.clientIp(ctx.req.socket)));
router.get('/api', (ctx) => text(ctx, `Hey ${c.first(ctx.query.name)} ${c.first(ctx.query.lastname)}`));
router.get('/api/private', bearer, ok(c.CT_JSON, c.BODIES.hello));

app.use(async (ctx, next) => {
  await next();
  if (ctx.status === 405) {
    ctx.set('allow', 'GET, HEAD');
    empty(ctx, 405);
  } else if (ctx.status === 404 && ctx.body == null) {
    empty(ctx, 404);
  }
});
app.use(router.routes());
app.use(router.allowedMethods());

const { host, port } = c.parseArgs('koa');
const server = app.listen({ host, port, backlog: 4096 });
server.on('error', (err) => c.listenFailed('koa', err));
server.on('listening', () => c.announce(server.address()));
c.exitOnSignals(server);

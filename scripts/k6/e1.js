// E1 (docs/experiments.md): the Express/Fastify/Koa ramp as k6 stages.
//
// Run by hand:
//   k6 run --summary-export out.json scripts/k6/e1.js
//   TARGET=http://127.0.0.1:8080 PRIVATE=1 k6 run --summary-export out.json scripts/k6/e1.js
//   k6 run -e QUICK=1 -e TARGET=http://127.0.0.1:8080 --summary-export out.json scripts/k6/e1.js
//
// Environment (k6 `-e NAME=value`, or the process environment):
//   TARGET      base URL, default http://127.0.0.1:8080
//   ENDPOINT    the path, default /api/hello (/api/private when PRIVATE is set)
//   PRIVATE     when set, GET /api/private with `Authorization: Bearer $AUTH_TOKEN`
//   AUTH_TOKEN  the bearer token, default bench-token
//   QUICK       when set, the same ramp shape in 1/10 of the time (36 s instead of 6 min)
//   TIMEOUT     per-request timeout (k6 form: 60s, 500ms), default k6's 60s
//   HEADERS     extra request headers as a JSON object, e.g. {"x-a":"b"}
//
// The bench harness (`bench run e1 --tool k6`) runs this file with its step's load given as
// flags (`--vus/--duration`, `--iterations` or `--stage`), which take precedence over the
// stages below, and reads the summary from `--summary-export /dev/stdout`.

import http from 'k6/http';

const quick = !!__ENV.QUICK;
const scale = (seconds) => `${quick ? Math.max(1, Math.round(seconds / 10)) : seconds}s`;

export const options = {
  stages: [
    { duration: scale(60), target: 100 },
    { duration: scale(120), target: 500 },
    { duration: scale(120), target: 1000 },
    { duration: scale(60), target: 0 },
  ],
  thresholds: {
    http_req_duration: ['p(95)<500'],
    http_req_failed: ['rate<0.01'],
  },
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'],
};

const target = (__ENV.TARGET || 'http://127.0.0.1:8080').replace(/\/+$/, '');
const priv = !!__ENV.PRIVATE;
const endpoint = __ENV.ENDPOINT || (priv ? '/api/private' : '/api/hello');
const headers = __ENV.HEADERS ? JSON.parse(__ENV.HEADERS) : {};
if (priv) {
  headers.Authorization = `Bearer ${__ENV.AUTH_TOKEN || 'bench-token'}`;
}
const params = { headers };
if (__ENV.TIMEOUT) {
  params.timeout = __ENV.TIMEOUT;
}
const url = `${target}${endpoint}`;

export default function () {
  http.get(url, params);
}

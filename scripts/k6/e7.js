// E7 (the open-loop profile): a fixed offered rate with k6's constant-arrival-rate executor.
//
// Run by hand:
//   k6 run -e RATE=5000 -e DURATION=10s -e TARGET=http://127.0.0.1:8080 \
//     --summary-export out.json scripts/k6/e7.js
//
// Environment (k6 `-e NAME=value`, or the process environment):
//   TARGET    base URL, default http://127.0.0.1:8080
//   ENDPOINT  the path, default /hello
//   RATE      requests (iterations) started per second, default 1000
//   DURATION  how long the rate is offered (k6 form: 10s, 500ms), default 10s
//   VUS       virtual users, pre-allocated and the most k6 may use, default 100: each keeps
//             one keep-alive connection, so they are the connections
//   TIMEOUT   per-request timeout (k6 form), default 10s; also how long k6 waits at the end
//             for the requests still in flight (gracefulStop)
//   HEADERS   extra request headers as a JSON object, e.g. {"x-a":"b"}
//
// k6 starts an iteration (one GET) at each scheduled moment when a VU is free; when all VUs
// are busy the iteration is not started and is counted in `dropped_iterations` instead, so a
// server that cannot keep up shows as fewer requests than offered, not as a later send.
// k6 times each request from its actual send (`http_req_duration`).
//
// The bench harness (`bench run e7 --tool k6`) runs this file with the step's rate, length,
// connections and timeout as `-e` values and reads the summary from
// `--summary-export /dev/stdout`.

import http from 'k6/http';

const rate = parseInt(__ENV.RATE || '1000', 10);
const vus = parseInt(__ENV.VUS || '100', 10);
const timeout = __ENV.TIMEOUT || '10s';

export const options = {
  discardResponseBodies: true,
  scenarios: {
    offered: {
      executor: 'constant-arrival-rate',
      rate,
      timeUnit: '1s',
      duration: __ENV.DURATION || '10s',
      preAllocatedVUs: vus,
      maxVUs: vus,
      gracefulStop: timeout,
    },
  },
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'p(99.9)'],
};

const target = (__ENV.TARGET || 'http://127.0.0.1:8080').replace(/\/+$/, '');
const endpoint = __ENV.ENDPOINT || '/hello';
const params = {
  headers: __ENV.HEADERS ? JSON.parse(__ENV.HEADERS) : {},
  timeout,
};
const url = `${target}${endpoint}`;

export default function () {
  http.get(url, params);
}

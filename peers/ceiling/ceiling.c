/*
 * ceiling: the most this machine's loopback carries for `GET /`, `/hello` and `/api/hello`.
 *
 * A minimal single-threaded epoll server that writes one constant prebuilt response per
 * request head it sees: the contract's bytes for the head's path (`/hello`: `Hello, World`;
 * `/api/hello`: `{"message":"Hello World"}`; any other path: the 1,024-byte `/` answer), each
 * with a fixed Date. It reads nothing of a head but its path (the bytes between the request
 * line's first space and the next space or `?`), whether ` HTTP/1.0` follows the path, and the
 * CRLF CRLF that ends it. To an HTTP/1.0 head it adds the contract's `connection: keep-alive`
 * and keeps the connection, as ab -k (E5's mode) needs; it never closes one itself, whatever
 * `connection` says (it reads no field). It is not a conforming server; it is the yardstick
 * every table compares against ("how far is each server from the ceiling").
 *
 * Build: cc -O2 -o ceiling ceiling.c
 * Run:   ./ceiling 127.0.0.1 8080     (port 0 picks one; prints "listening on http://HOST:PORT")
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define BODY_LEN 1024
#define MAX_EVENTS 512
#define MAX_FD 65536
/* The start of a head that is kept to read its path: "GET /api/hello?" fits. */
#define LINE 32
#define OUT (256 * 1024)

#define DATE "date: Sun, 29 Nov 2026 00:00:00 GMT\r\n\r\n"
/* The heads by path, `conn` the field line an HTTP/1.0 head gets (the contract's order: before
 * `date`), then the body but for `/`'s 1,024 bytes, which main appends. */
#define ROOT_HEAD(conn) "HTTP/1.1 200 OK\r\n" \
                        "content-type: text/plain; charset=utf-8\r\n" \
                        "content-length: 1024\r\n" conn DATE
#define HELLO(conn) "HTTP/1.1 200 OK\r\n" \
                    "content-type: text/plain; charset=utf-8\r\n" \
                    "content-length: 12\r\n" conn DATE "Hello, World"
#define API_HELLO(conn) "HTTP/1.1 200 OK\r\n" \
                        "content-type: application/json\r\n" \
                        "content-length: 25\r\n" conn DATE "{\"message\":\"Hello World\"}"
#define KEEP_ALIVE "connection: keep-alive\r\n"
/* The answers, by path: 0 `/` (and any other), 1 `/hello`, 2 `/api/hello`; 3 more than those
 * to an HTTP/1.0 head. */
static const char *const HEADS[6] = {ROOT_HEAD(""), HELLO(""), API_HELLO(""),
                                     ROOT_HEAD(KEEP_ALIVE), HELLO(KEEP_ALIVE), API_HELLO(KEEP_ALIVE)};
static char *answer[6];
static size_t answer_len[6];
/* Per fd: how many bytes of "\r\n\r\n" the previous read ended with, and the start of the
 * head being read. */
static unsigned char matched[MAX_FD];
static unsigned char line_len[MAX_FD];
static char line[MAX_FD][LINE];

static void on_term(int sig) { (void)sig; _exit(0); }

/* Which answer the head that starts with `l` (`n` bytes kept) gets. A request line longer than
 * the bytes kept (a long query) is answered as HTTP/1.1. */
static int pick(const char *l, unsigned n) {
    const char *sp = memchr(l, ' ', n);
    if (!sp) return 0;
    const char *path = sp + 1;
    size_t left = n - (size_t)(path - l), len = 0;
    while (len < left && path[len] != ' ' && path[len] != '?') len++;
    int a = 0;
    if (len == 6 && memcmp(path, "/hello", 6) == 0) a = 1;
    if (len == 10 && memcmp(path, "/api/hello", 10) == 0) a = 2;
    const char *rest = memchr(path, ' ', left);
    if (rest && (size_t)(l + n - rest) >= 9 && memcmp(rest, " HTTP/1.0", 9) == 0) a += 3;
    return a;
}

/* Appends to `out` (holding `*len` bytes) the answer of every head that ends in `buf`,
 * writing `out` to `fd` whenever the next answer would not fit. Returns -1 when a write
 * failed. */
static int answer_heads(int fd, const char *buf, ssize_t n, char *out, size_t *len) {
    static const char END[] = "\r\n\r\n";
    unsigned m = matched[fd];
    for (ssize_t i = 0; i < n; i++) {
        if (line_len[fd] < LINE) line[fd][line_len[fd]++] = buf[i];
        if (buf[i] == END[m]) {
            if (++m < 4) continue;
            m = 0;
            int a = pick(line[fd], line_len[fd]);
            line_len[fd] = 0;
            if (*len + answer_len[a] > OUT) {
                /* A short write on loopback at these sizes is rare; the yardstick ignores it. */
                if (write(fd, out, *len) < 0) return -1;
                *len = 0;
            }
            memcpy(out + *len, answer[a], answer_len[a]);
            *len += answer_len[a];
        } else {
            m = (buf[i] == '\r') ? 1 : 0;
        }
    }
    matched[fd] = (unsigned char)m;
    return 0;
}

int main(int argc, char **argv) {
    const char *host = argc > 1 ? argv[1] : "127.0.0.1";
    int port = argc > 2 ? atoi(argv[2]) : 8080;
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);
    signal(SIGPIPE, SIG_IGN);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) { rl.rlim_cur = rl.rlim_max; setrlimit(RLIMIT_NOFILE, &rl); }

    for (int i = 0; i < 6; i++) {
        size_t head = strlen(HEADS[i]), body = (i % 3 == 0) ? BODY_LEN : 0;
        answer_len[i] = head + body;
        answer[i] = malloc(answer_len[i]);
        memcpy(answer[i], HEADS[i], head);
        memset(answer[i] + head, '.', body);
    }
    static char out[OUT];

    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1) { fprintf(stderr, "ceiling: bad host %s\n", host); return 2; }
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) || listen(lfd, 4096)) { perror("ceiling: cannot listen"); return 2; }
    socklen_t al = sizeof a;
    getsockname(lfd, (struct sockaddr *)&a, &al);
    printf("listening on http://%s:%d\n", host, ntohs(a.sin_port));
    fflush(stdout);

    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = lfd};
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    struct epoll_event evs[MAX_EVENTS];
    static char buf[65536];
    for (;;) {
        int n = epoll_wait(ep, evs, MAX_EVENTS, -1);
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            if (fd == lfd) {
                for (;;) {
                    int c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
                    if (c < 0) break;
                    if (c >= MAX_FD) { close(c); continue; }
                    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    matched[c] = 0;
                    line_len[c] = 0;
                    struct epoll_event ce = {.events = EPOLLIN, .data.fd = c};
                    epoll_ctl(ep, EPOLL_CTL_ADD, c, &ce);
                }
                continue;
            }
            ssize_t r = read(fd, buf, sizeof buf);
            if (r <= 0) {
                if (r < 0 && errno == EAGAIN) continue;
                close(fd);
                continue;
            }
            size_t len = 0;
            if (answer_heads(fd, buf, r, out, &len) == 0 && len > 0) {
                if (write(fd, out, len) < 0) continue;
            }
        }
    }
}

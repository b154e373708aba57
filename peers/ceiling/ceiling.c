/*
 * ceiling: the most this machine's loopback carries for `GET /`.
 *
 * A minimal single-threaded epoll server that writes one constant prebuilt response (the
 * contract's 1,024-byte `/` answer, with a fixed Date) per request head it sees, without
 * parsing anything but the CRLF CRLF that ends a head. It is not a conforming server; it
 * is the yardstick every table compares against ("how far is each server from the
 * ceiling").
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
#define BATCH 64

static const char HEAD[] = "HTTP/1.1 200 OK\r\n"
                           "content-type: text/plain; charset=utf-8\r\n"
                           "content-length: 1024\r\n"
                           "date: Sun, 29 Nov 2026 00:00:00 GMT\r\n\r\n";
static char *batch;   /* BATCH copies of the response */
static size_t one_len;
/* Per fd: how many bytes of "\r\n\r\n" the previous read ended with. */
static unsigned char matched[MAX_FD];

static void on_term(int sig) { (void)sig; _exit(0); }

static int count_heads(int fd, const char *buf, ssize_t n) {
    static const char END[] = "\r\n\r\n";
    int heads = 0;
    unsigned m = matched[fd];
    for (ssize_t i = 0; i < n; i++) {
        if (buf[i] == END[m]) {
            if (++m == 4) { heads++; m = 0; }
        } else {
            m = (buf[i] == '\r') ? 1 : 0;
        }
    }
    matched[fd] = (unsigned char)m;
    return heads;
}

int main(int argc, char **argv) {
    const char *host = argc > 1 ? argv[1] : "127.0.0.1";
    int port = argc > 2 ? atoi(argv[2]) : 8080;
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);
    signal(SIGPIPE, SIG_IGN);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) { rl.rlim_cur = rl.rlim_max; setrlimit(RLIMIT_NOFILE, &rl); }

    one_len = sizeof(HEAD) - 1 + BODY_LEN;
    batch = malloc(one_len * BATCH);
    for (int i = 0; i < BATCH; i++) {
        memcpy(batch + i * one_len, HEAD, sizeof(HEAD) - 1);
        memset(batch + i * one_len + sizeof(HEAD) - 1, '.', BODY_LEN);
    }

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
            int heads = count_heads(fd, buf, r);
            while (heads > 0) {
                int k = heads < BATCH ? heads : BATCH;
                /* A short write on loopback at these sizes is rare; the yardstick ignores it. */
                if (write(fd, batch, one_len * (size_t)k) < 0) break;
                heads -= k;
            }
        }
    }
}

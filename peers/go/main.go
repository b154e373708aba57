// The Go net/http peer of E5: the standard library's server with one plain handler,
// GOMAXPROCS from the command line, the contract's bodies built once at start-up.
//
//	go-http --addr 127.0.0.1:8080 [--workers N]   (N: GOMAXPROCS; default: the number of CPUs)
//
// Prints `listening on http://HOST:PORT` once listening (port 0 picks a free port) and stops
// on SIGINT or SIGTERM after in-flight requests finish (at most 5 s), exiting 0.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	ctJSON = "application/json"
	ctText = "text/plain; charset=utf-8"
)

// A fixed answer: its content type, body and content length, built once.
type fixed struct {
	ct   []string
	cl   []string
	body []byte
}

func answer(ct string, body string) fixed {
	return fixed{ct: []string{ct}, cl: []string{strconv.Itoa(len(body))}, body: []byte(body)}
}

var (
	hello     = answer(ctJSON, `{"message":"Hello World"}`)
	root      = answer(ctText, strings.Repeat(".", 1024))
	helloText = answer(ctText, "Hello, World")
	zero      = []string{"0"}
	allow     = []string{"GET, HEAD"}
)

func send(w http.ResponseWriter, f fixed) {
	h := w.Header()
	h["Content-Type"] = f.ct
	h["Content-Length"] = f.cl
	w.WriteHeader(http.StatusOK)
	w.Write(f.body)
}

func text(w http.ResponseWriter, s string) {
	h := w.Header()
	h["Content-Type"] = root.ct
	h["Content-Length"] = []string{strconv.Itoa(len(s))}
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(s))
}

func empty(w http.ResponseWriter, status int) {
	h := w.Header()
	h["Content-Length"] = zero
	if status == http.StatusMethodNotAllowed {
		h["Allow"] = allow
	}
	w.WriteHeader(status)
}

func handle(w http.ResponseWriter, r *http.Request) {
	// The path as sent (EscapedPath keeps %2F), so that no decoded form matches an endpoint.
	path := r.URL.EscapedPath()
	known := path == "/" || path == "/api/hello" || path == "/hello" || path == "/my/ip" || path == "/api"
	if !known {
		empty(w, http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		empty(w, http.StatusMethodNotAllowed)
		return
	}
	switch path {
	case "/api/hello":
		send(w, hello)
	case "/":
		send(w, root)
	case "/hello":
		send(w, helloText)
	case "/my/ip":
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		text(w, host)
	case "/api":
		q := r.URL.Query()
		text(w, "Hey "+q.Get("name")+" "+q.Get("lastname"))
	}
}

func main() {
	flags := flag.NewFlagSet("go-http", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	addr := flags.String("addr", "127.0.0.1:8080", "HOST:PORT to listen on")
	workers := flags.Int("workers", 0, "GOMAXPROCS (0: the number of CPUs)")
	if err := flags.Parse(os.Args[1:]); err != nil || *workers < 0 || flags.NArg() > 0 {
		// One line on stderr, exit 2, as the contract has it for a bad start.
		fmt.Fprintln(os.Stderr, "go-http: usage: go-http [--addr HOST:PORT] [--workers N]")
		os.Exit(2)
	}
	if *workers > 0 {
		runtime.GOMAXPROCS(*workers)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-http: cannot listen on %s: %v\n", *addr, err)
		os.Exit(2)
	}
	srv := &http.Server{Handler: http.HandlerFunc(handle), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 65 * time.Second}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	os.Stdout.Sync()

	failed := make(chan error, 1)
	go func() { failed <- srv.Serve(ln) }()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	select {
	case err := <-failed:
		fmt.Fprintf(os.Stderr, "go-http: %v\n", err)
		os.Exit(1)
	case <-stop:
	}
	// Stop accepting, let in-flight requests finish (at most 5 s), exit 0.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(ctx)
}

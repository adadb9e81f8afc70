package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/candor-bench/candor/userr"
)

// Path is where the metrics are served.
const Path = "/metrics"

// Server serves one Collector (and the Go runtime's and the process's own metrics) over HTTP on
// the address the user gave, and nothing else. It listens from Listen until Close.
type Server struct {
	ln  net.Listener
	srv *http.Server
	col *Collector
	err chan error
}

// CheckAddr reports whether addr is a HOST:PORT to listen on (the port may be 0: any free one).
func CheckAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return userr.Errorf("--metrics-addr %q is not HOST:PORT: give an address to serve Prometheus metrics on, for example --metrics-addr 127.0.0.1:9464", addr)
	}
	_ = host // empty means every interface, as net.Listen has it: the user's choice
	return nil
}

// Listen binds addr and starts serving col at Path. A malformed or unusable address is the user's
// to fix (userr).
func Listen(addr string, col *Collector) (*Server, error) {
	if err := CheckAddr(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, userr.Errorf("cannot serve metrics on --metrics-addr %s: %v: choose a free port on an address of this host", addr, err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(col, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle(Path, promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, "candor: Prometheus metrics of the running benchmark are at %s\n", Path)
	})
	s := &Server{
		ln:  ln,
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second},
		col: col,
		err: make(chan error, 1),
	}
	go func() { s.err <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address listened on (with the port chosen when the user gave port 0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the metrics' URL.
func (s *Server) URL() string { return "http://" + s.Addr() + Path }

// Close stops listening and waits (at most a second) for scrapes in progress.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.err; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

package lspserver

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/netutil"
)

// The endpoint listens on loopback, where any local process can connect,
// token or not. Without bounds such a process could open connections and
// hold them (silent, or kept alive after its 401) until the session runs
// out of file descriptors and Read and Bash fail. So: at most
// endpointMaxConns connections are accepted at once (more wait in the
// kernel's queue, holding none of ours); a connection must send its
// headers within endpointHeaderTimeout; a refused request closes its
// connection; a kept-alive connection idle for endpointIdleTimeout is
// closed. An agent's open event stream is a request in progress, not an
// idle connection: it stays. Variables for tests.
var (
	endpointMaxConns      = 64
	endpointHeaderTimeout = 5 * time.Second
	endpointIdleTimeout   = time.Minute
)

// guardedServer is the endpoint's HTTP server over ln with the bounds
// above, and the listener it must serve on.
func guardedServer(ln net.Listener, h http.Handler) (*http.Server, net.Listener) {
	srv := &http.Server{
		Handler:           checkOrigin(h),
		ReadHeaderTimeout: endpointHeaderTimeout,
		IdleTimeout:       endpointIdleTimeout,
		// No ReadTimeout or WriteTimeout: they would cut the event
		// streams agents keep open, and the calls that run on them.
	}
	return srv, netutil.LimitListener(ln, endpointMaxConns)
}

// checkOrigin refuses, with 403 as the MCP specification asks, a request
// whose Origin is not a loopback one: a web page the user visits can make
// the browser send requests to a loopback port. Agents (no browser) send no
// Origin, which is accepted.
func checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !loopbackOrigin(origin) {
			refuse(w, "toolhost: requests from the web origin "+origin+" are refused; the endpoint serves local agents only (they send no Origin, or a loopback one).", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackOrigin reports whether origin is http(s) on localhost or a
// loopback address, any port.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || (u.Path != "" && u.Path != "/") {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// refuse answers a refused request and closes its connection, so that a
// client without the right to be served holds no connection after it.
func refuse(w http.ResponseWriter, msg string, code int) {
	w.Header().Set("Connection", "close")
	http.Error(w, msg, code)
}

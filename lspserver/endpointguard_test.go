package lspserver

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// guardedEndpoint serves a token-guarded handler the way the endpoint does
// and returns its address and the most connections it ever had open.
func guardedEndpoint(t *testing.T, token string) (addr string, peak func() int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, guarded := guardedServer(ln, requireToken(token, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "served")
	})))
	var mu sync.Mutex
	open, most := 0, 0
	srv.ConnState = func(_ net.Conn, st http.ConnState) {
		mu.Lock()
		defer mu.Unlock()
		switch st {
		case http.StateNew:
			open++
			most = max(most, open)
		case http.StateClosed, http.StateHijacked:
			open--
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(guarded)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return ln.Addr().String(), func() int { mu.Lock(); defer mu.Unlock(); return most }
}

// request sends one HTTP/1.1 request on conn and returns the status line.
func request(t *testing.T, conn net.Conn, r *bufio.Reader, headers string) string {
	t.Helper()
	if _, err := io.WriteString(conn, "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"+headers+"\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("no response: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.Status
}

// closedByServer reports whether the server closed conn (EOF) before the
// test's bound; the bound only keeps a broken build from hanging.
func closedByServer(conn net.Conn, r *bufio.Reader) bool {
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err := r.ReadByte()
	return errors.Is(err, io.EOF)
}

func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, bufio.NewReader(conn)
}

// TestEndpointDropsUnauthorisedAndSilentConnections: a local process
// without the token holds no connection: its 401 closes the connection,
// and one that never sends its headers is closed at the header timeout.
func TestEndpointDropsUnauthorisedAndSilentConnections(t *testing.T) {
	defer func(d time.Duration) { endpointHeaderTimeout = d }(endpointHeaderTimeout)
	endpointHeaderTimeout = 200 * time.Millisecond
	addr, _ := guardedEndpoint(t, "secret")

	conn, r := dial(t, addr)
	if st := request(t, conn, r, "Authorization: Bearer wrong\r\n"); !strings.HasPrefix(st, "401") {
		t.Fatalf("a wrong token got %s", st)
	}
	if !closedByServer(conn, r) {
		t.Error("the connection stayed open after the 401")
	}

	silent, sr := dial(t, addr)
	if !closedByServer(silent, sr) {
		t.Error("a connection that sends nothing stayed open")
	}

	// The token's holder is served and may keep its connection.
	ok, or := dial(t, addr)
	for range 2 {
		if st := request(t, ok, or, "Authorization: Bearer secret\r\n"); !strings.HasPrefix(st, "200") {
			t.Fatalf("the right token got %s", st)
		}
	}
}

// TestEndpointCapsConnections: however many connections local processes
// open, the session holds at most endpointMaxConns of them; the others wait
// in the kernel's queue, and are served once a slot frees (here: the
// silent squatters reach the header timeout).
func TestEndpointCapsConnections(t *testing.T) {
	defer func(n int, d time.Duration) { endpointMaxConns, endpointHeaderTimeout = n, d }(endpointMaxConns, endpointHeaderTimeout)
	endpointMaxConns, endpointHeaderTimeout = 4, 300*time.Millisecond
	addr, peak := guardedEndpoint(t, "secret")

	for range 3 * endpointMaxConns {
		dial(t, addr)
	}
	// A client with the token, queued behind the squatters. Without a cap
	// it is accepted at once, after every squatter was.
	late, lr := dial(t, addr)
	if st := request(t, late, lr, "Authorization: Bearer secret\r\n"); !strings.HasPrefix(st, "200") {
		t.Fatalf("the client behind the squatters got %s", st)
	}
	if got := peak(); got > endpointMaxConns {
		t.Errorf("the endpoint held %d connections at once, want at most %d", got, endpointMaxConns)
	}
}

// TestEndpointChecksOrigin: a browser page's request (a web Origin) is
// refused with 403 even with the token; agents send no Origin or a
// loopback one.
func TestEndpointChecksOrigin(t *testing.T) {
	addr, _ := guardedEndpoint(t, "secret")
	tests := []struct {
		origin string
		want   string
	}{
		{"", "200"},
		{"http://localhost:5173", "200"},
		{"http://127.0.0.1:8080", "200"},
		{"http://[::1]:3000", "200"},
		{"https://evil.example", "403"},
		{"http://localhost.evil.example", "403"},
		{"http://127.0.0.1.nip.io", "403"},
		{"null", "403"},
		{"file://", "403"},
	}
	for _, tt := range tests {
		t.Run(tt.origin, func(t *testing.T) {
			conn, r := dial(t, addr)
			h := "Authorization: Bearer secret\r\n"
			if tt.origin != "" {
				h += "Origin: " + tt.origin + "\r\n"
			}
			if st := request(t, conn, r, h); !strings.HasPrefix(st, tt.want) {
				t.Errorf("Origin %q: %s, want %s", tt.origin, st, tt.want)
			}
		})
	}
}

package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/settings"
)

// recorded is what the API server saw of one request.
type recorded struct {
	method string
	path   string
	header http.Header
	body   string
}

// apiServer is a small local API: /items answers JSON and echoes what it
// got, /redirect/* redirect on the same host or away, /png is binary.
func apiServer(t *testing.T, other string) (*httptest.Server, func() []recorded) {
	t.Helper()
	var mu sync.Mutex
	var seen []recorded
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, recorded{r.Method, r.URL.Path, r.Header.Clone(), string(body)})
		mu.Unlock()
		switch r.URL.Path {
		case "/items":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-RateLimit-Remaining", "41")
			w.Header().Set("Set-Cookie", "session=very-secret")
			if r.Method == http.MethodPost {
				w.WriteHeader(http.StatusCreated)
			}
			json.NewEncoder(w).Encode(map[string]any{"method": r.Method, "got": string(body), "contentType": r.Header.Get("Content-Type")})
		case "/redirect/same-307":
			http.Redirect(w, r, "/items", http.StatusTemporaryRedirect)
		case "/redirect/same-303":
			http.Redirect(w, r, "/items", http.StatusSeeOther)
		case "/redirect/away":
			http.Redirect(w, r, other+"/items", http.StatusFound)
		case "/png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte(strings.Repeat("x", maxResponseChars+500)))
		case "/missing":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":"no such item"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() []recorded {
		mu.Lock()
		defer mu.Unlock()
		return append([]recorded(nil), seen...)
	}
}

func TestHTTPRequest(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the redirect to another host was followed: %s", r.URL)
	}))
	defer other.Close()
	srv, seen := apiServer(t, other.URL)
	t.Setenv("GITHUB_TOKEN", "ghp_should_never_be_sent")
	h := NewHTTPRequest(testSettings(nil))

	cases := []struct {
		name       string
		input      map[string]any
		wantError  bool
		want       []string
		notWant    []string
		wantMethod string // the method the server saw last ("" = no request)
		wantBody   string
	}{
		{"GET JSON", map[string]any{"url": srv.URL + "/items"}, false,
			[]string{"HTTP 200 OK", "Content-Type: application/json", "X-Ratelimit-Remaining: 41", "{\n  \"contentType\": \"\",\n  \"got\": \"\",\n  \"method\": \"GET\"\n}"},
			[]string{"very-secret", "Set-Cookie"}, "GET", ""},
		{"POST JSON body gets its content type", map[string]any{"url": srv.URL + "/items", "method": "POST", "body": `{"name":"x"}`}, false,
			[]string{"HTTP 201 Created", `"contentType": "application/json"`, `"got": "{\"name\":\"x\"}"`}, nil, "POST", `{"name":"x"}`},
		{"PUT with the caller's headers", map[string]any{"url": srv.URL + "/items", "method": "PUT", "body": "a=b", "headers": map[string]string{"Content-Type": "application/x-www-form-urlencoded", "X-Custom": "1"}}, false,
			[]string{`"method": "PUT"`, `"contentType": "application/x-www-form-urlencoded"`}, nil, "PUT", "a=b"},
		{"DELETE", map[string]any{"url": srv.URL + "/items", "method": "DELETE"}, false, []string{`"method": "DELETE"`}, nil, "DELETE", ""},
		{"307 on the same host keeps the method and body", map[string]any{"url": srv.URL + "/redirect/same-307", "method": "PATCH", "body": "p"}, false,
			[]string{`"method": "PATCH"`, `"got": "p"`}, nil, "PATCH", "p"},
		{"303 turns into GET", map[string]any{"url": srv.URL + "/redirect/same-303", "method": "POST", "body": "p"}, false,
			[]string{`"method": "GET"`, `"got": ""`}, nil, "GET", ""},
		{"redirect to another host is reported", map[string]any{"url": srv.URL + "/redirect/away"}, false,
			[]string{"redirects to another host: " + other.URL + "/items", "was not followed"}, nil, "GET", ""},
		{"binary refused", map[string]any{"url": srv.URL + "/png"}, false, []string{"binary body of type image/png", "not shown"}, []string{"PNG"}, "GET", ""},
		{"body capped", map[string]any{"url": srv.URL + "/big"}, false, []string{"body cut at 100000 characters"}, nil, "GET", ""},
		{"error status is an error with the body", map[string]any{"url": srv.URL + "/missing"}, true, []string{"Error: the server answered HTTP 404 Not Found", `"error": "no such item"`}, nil, "GET", ""},
		{"not http", map[string]any{"url": "file:///etc/passwd"}, true, []string{"not an http(s) URL"}, nil, "", ""},
		{"credentials in the URL refused", map[string]any{"url": "http://user:pw@" + strings.TrimPrefix(srv.URL, "http://") + "/items"}, true, []string{"user name or password"}, nil, "", ""},
		{"managed header refused", map[string]any{"url": srv.URL + "/items", "headers": map[string]string{"host": "evil"}}, true, []string{"header Host is set by the HTTP client"}, nil, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := len(seen())
			res := call(t, h, tc.input)
			text := res.Text()
			if res.IsError != tc.wantError {
				t.Fatalf("IsError = %v:\n%s", res.IsError, text)
			}
			mustContain(t, text, tc.want...)
			for _, nw := range tc.notWant {
				if strings.Contains(text, nw) {
					t.Errorf("text holds %q:\n%s", nw, text)
				}
			}
			reqs := seen()[before:]
			if tc.wantMethod == "" {
				if len(reqs) != 0 {
					t.Errorf("a request was sent: %+v", reqs)
				}
				return
			}
			if len(reqs) == 0 {
				t.Fatal("no request reached the server")
			}
			last := reqs[len(reqs)-1]
			if last.method != tc.wantMethod || last.body != tc.wantBody {
				t.Errorf("server saw %s %q, want %s %q", last.method, last.body, tc.wantMethod, tc.wantBody)
			}
			for _, r := range reqs {
				for _, h := range []string{"Authorization", "Cookie", "Proxy-Authorization"} {
					if v := r.header.Get(h); v != "" {
						t.Errorf("%s was added: %q", h, v)
					}
				}
				for k, vs := range r.header {
					if strings.Contains(strings.Join(vs, ","), "ghp_") {
						t.Errorf("the environment's token went out in %s", k)
					}
				}
			}
		})
	}
}

func TestHTTPRequestAccessRiskAndPreview(t *testing.T) {
	h := NewHTTPRequest(nil)
	if a := h.Access(json.RawMessage(`{"url":"https://API.Example.com:8443/x"}`)); a.Domain != "api.example.com" {
		t.Errorf("domain = %q", a.Domain)
	}
	if r := h.Risk(json.RawMessage(`{"url":"https://a.b"}`)); r != "high" {
		t.Errorf("GET risk = %s", r)
	}
	if r := h.Risk(json.RawMessage(`{"url":"https://a.b","method":"DELETE"}`)); r != "critical" {
		t.Errorf("DELETE risk = %s", r)
	}
	p := h.Preview(t.Context(), json.RawMessage(`{"url":"http://example.com/x","method":"POST","body":"{}"}`))
	if p == nil || p.Text != "POST https://example.com/x\n\n{}" {
		t.Errorf("preview = %+v", p)
	}
}

func TestHTTPRequestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	res := call(t, NewHTTPRequest(testSettings(func(s *settings.Settings) {})), map[string]any{"url": srv.URL, "timeout": 50})
	if !res.IsError || !strings.Contains(res.Text(), "did not send the whole page within 50ms (the timeout of the call)") {
		t.Errorf("%v %q", res.IsError, res.Text())
	}
}

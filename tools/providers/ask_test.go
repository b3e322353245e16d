package providers

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

// chatServer is a local chat-completions endpoint answering "echo: " and the
// last user message, recording each request.
type chatServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []recordedChat
}

type recordedChat struct {
	auth string
	body struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
}

func newChatServer(t *testing.T) *chatServer {
	cs := &chatServer{}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rec recordedChat
		rec.auth = r.Header.Get("Authorization")
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &rec.body); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		cs.mu.Lock()
		cs.reqs = append(cs.reqs, rec)
		cs.mu.Unlock()
		last := rec.body.Messages[len(rec.body.Messages)-1].Content
		if last == "fail" {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"error":{"message":"overloaded"}}`))
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"role": "assistant", "content": "echo: " + last}, "finish_reason": "stop"}}})
	}))
	t.Cleanup(cs.Close)
	return cs
}

func (cs *chatServer) count() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return len(cs.reqs)
}

func (cs *chatServer) last() recordedChat {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.reqs[len(cs.reqs)-1]
}

func TestAskAndSync(t *testing.T) {
	cs := newChatServer(t)
	t.Setenv("TEST_PROVIDER_KEY", "k-123")
	reg := tools.NewRegistry()
	sy := NewSyncer(reg, tools.CategoryAgent, nil)
	st := settings.Defaults()
	st.Providers = map[string]settings.Agent{
		"local model": {Endpoint: cs.URL + "/v1/chat/completions", Model: "m-1", APIKeyEnv: "TEST_PROVIDER_KEY"},
		"nokey":       {Endpoint: cs.URL + "/v1/chat/completions", APIKeyEnv: "TEST_PROVIDER_UNSET_KEY"},
		"blank":       {Model: "no endpoint"},
		"bad":         {Endpoint: "ftp://example.com/x"},
	}
	sy.Sync(st)
	if got := reg.Names(); strings.Join(got, ",") != "ask_bad,ask_local_model,ask_nokey" {
		t.Fatalf("tools = %v", got)
	}
	e, _ := reg.Lookup("ask_local_model")
	if d := e.Tool.Description(); !strings.Contains(d, "Consult m-1 (127.0.0.1, the provider \"local model\")") {
		t.Errorf("description = %q", d)
	}
	if a := e.Tool.(tools.AccessDescriber).Access(nil); a.Domain != "127.0.0.1" {
		t.Errorf("access = %+v", a)
	}

	run := func(name, input string) *tools.Result {
		t.Helper()
		e, ok := reg.Lookup(name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		res, err := e.Tool.Execute(t.Context(), &tools.Call{Input: json.RawMessage(input), Progress: tools.NoProgress{}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run("ask_local_model", `{"prompt":"is 2 prime?","system":"answer briefly"}`)
	if res.IsError || res.Text() != "echo: is 2 prime?" {
		t.Errorf("answer = %v %q", res.IsError, res.Text())
	}
	got := cs.last()
	if got.auth != "Bearer k-123" || got.body.Model != "m-1" || len(got.body.Messages) != 2 ||
		got.body.Messages[0].Role != "system" || got.body.Messages[0].Content != "answer briefly" || got.body.Messages[1].Role != "user" {
		t.Errorf("request = %+v", got)
	}
	if res := run("ask_local_model", `{"prompt":"fail"}`); !res.IsError || !strings.Contains(res.Text(), "overloaded") || !strings.Contains(res.Text(), "providers.local model") {
		t.Errorf("server error: %q", res.Text())
	}
	before := cs.count()
	if res := run("ask_nokey", `{"prompt":"x"}`); !res.IsError || !strings.Contains(res.Text(), "TEST_PROVIDER_UNSET_KEY, which is not set") || cs.count() != before {
		t.Errorf("missing key: %q (requests %d → %d)", res.Text(), before, cs.count())
	}

	if res := run("ask_bad", `{"prompt":"x"}`); !res.IsError || !strings.Contains(res.Text(), "not an http(s) URL") {
		t.Errorf("bad endpoint: %q", res.Text())
	}

	// Settings change: a provider removed, the registry follows; an
	// unchanged set does not touch the registry.
	changes := 0
	reg.OnChange(func() { changes++ })
	st2 := settings.Defaults()
	st2.Providers = map[string]settings.Agent{"nokey": st.Providers["nokey"]}
	sy.Sync(st2)
	sy.Sync(st2)
	if got := reg.Names(); strings.Join(got, ",") != "ask_nokey" || changes != 1 {
		t.Errorf("after removal: %v, %d changes", got, changes)
	}
	sy.Sync(settings.Defaults())
	if got := reg.Names(); len(got) != 0 {
		t.Errorf("after clearing: %v", got)
	}
}

func TestToolName(t *testing.T) {
	for in, want := range map[string]string{"gpt": "ask_gpt", "my model/v2": "ask_my_model_v2", strings.Repeat("x", 80): "ask_" + strings.Repeat("x", 60)} {
		if got := ToolName(in); got != want {
			t.Errorf("ToolName(%q) = %q, want %q", in, got, want)
		}
	}
}

package lspserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"go.lsp.dev/protocol"
)

// clientLogHandler forwards log records to the client as window/logMessage.
// Which records go depends on the $/setTrace level: off sends warnings and
// errors, messages adds info, verbose adds debug.
type clientLogHandler struct {
	srv   *server
	attrs []slog.Attr
	group string
}

func (h *clientLogHandler) minLevel() slog.Level {
	switch h.srv.trace.Load() {
	case traceVerbose:
		return slog.LevelDebug
	case traceMessages:
		return slog.LevelInfo
	}
	return slog.LevelWarn
}

func (h *clientLogHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.minLevel()
}

func (h *clientLogHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	write := func(a slog.Attr) bool {
		key := a.Key
		if h.group != "" {
			key = h.group + "." + key
		}
		fmt.Fprintf(&b, " %s=%v", key, a.Value.Resolve())
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(write)
	kind := protocol.MessageTypeLog
	switch {
	case r.Level >= slog.LevelError:
		kind = protocol.MessageTypeError
	case r.Level >= slog.LevelWarn:
		kind = protocol.MessageTypeWarning
	case r.Level >= slog.LevelInfo:
		kind = protocol.MessageTypeInfo
	}
	return h.srv.notify("window/logMessage", protocol.LogMessageParams{Type: kind, Message: b.String()})
}

func (h *clientLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	return &c
}

func (h *clientLogHandler) WithGroup(name string) slog.Handler {
	c := *h
	if c.group != "" {
		name = c.group + "." + name
	}
	c.group = name
	return &c
}

// fanoutHandler sends each record to every handler that wants it.
type fanoutHandler []slog.Handler

func (f fanoutHandler) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range f {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (f fanoutHandler) Handle(ctx context.Context, r slog.Record) error {
	var errs []error
	for _, h := range f {
		if h.Enabled(ctx, r.Level) {
			errs = append(errs, h.Handle(ctx, r.Clone()))
		}
	}
	return errors.Join(errs...)
}

func (f fanoutHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make(fanoutHandler, len(f))
	for i, h := range f {
		out[i] = h.WithAttrs(attrs)
	}
	return out
}

func (f fanoutHandler) WithGroup(name string) slog.Handler {
	out := make(fanoutHandler, len(f))
	for i, h := range f {
		out[i] = h.WithGroup(name)
	}
	return out
}

package ideserver

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// wsConn is one CLI's WebSocket carrying MCP: each text or binary message
// is one JSON-RPC message. It is the MCP SDK's Connection (and, through
// wsTransport, its Transport), so the SDK's server runs the MCP side
// (initialize, tools/list, tools/call, cancellation) as on the other
// transports; only the framing is this file's.
type wsConn struct {
	ws *websocket.Conn
	// notified receives the CLI's own notifications (ide_connected), which
	// are not MCP methods: the SDK would only log them as unknown.
	notified  func(method string, params json.RawMessage)
	closeOnce sync.Once
}

// Read returns the next message. A message that is not JSON-RPC is
// answered with a parse error and skipped: one bad frame does not end
// the CLI's session.
func (c *wsConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		_, data, err := c.ws.Read(ctx)
		if err != nil {
			return nil, err
		}
		msg, err := jsonrpc.DecodeMessage(data)
		if err != nil {
			// A parse error has no id to answer (null): the SDK's encoder
			// refuses such a response, so it is written as is.
			reply, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{
				"code":    jsonrpc.CodeParseError,
				"message": "toolhost: not a JSON-RPC 2.0 message (" + err.Error() + "); send one JSON-RPC object per WebSocket message"}})
			if err := c.writeRaw(ctx, reply); err != nil {
				return nil, err
			}
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok && !req.IsCall() && !strings.HasPrefix(req.Method, "notifications/") {
			if c.notified != nil {
				c.notified(req.Method, req.Params)
			}
			continue
		}
		return msg, nil
	}
}

// Write sends msg as one text message; the WebSocket library serialises
// concurrent writers.
func (c *wsConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.ws.Write(ctx, websocket.MessageText, data)
}

// writeRaw sends an already encoded message (a notification to every CLI).
func (c *wsConn) writeRaw(ctx context.Context, data []byte) error {
	return c.ws.Write(ctx, websocket.MessageText, data)
}

// Close ends the connection at once: it unblocks a pending Read, as the
// SDK requires, and does not wait for the peer's closing handshake.
func (c *wsConn) Close() error {
	c.closeOnce.Do(func() { _ = c.ws.CloseNow() })
	return nil
}

// SessionID is empty: one connection is one session.
func (c *wsConn) SessionID() string { return "" }

// wsTransport hands an accepted connection to the SDK's server.
type wsTransport struct{ conn *wsConn }

func (t wsTransport) Connect(context.Context) (sdk.Connection, error) { return t.conn, nil }

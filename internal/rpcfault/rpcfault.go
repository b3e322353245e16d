// Package rpcfault is where both of toolhost's JSON-RPC transports (the
// editor connection's LSP framing and toolhost mcp's newline-delimited
// stdio) decide what is wrong with a client's message and how to answer
// it: one decode of a message's envelope with one set of rules (the
// version tag, ids an answer can repeat exactly, a method or a result),
// the error shapes (an error answer with the id it could read, else
// null; no error without a code), and the backpressure that holds a
// client that does not read its answers (Flow). The transports keep only
// their framing and the wording of their hints.
//
// Messages are the MCP Go SDK's jsonrpc types, which both transports
// share: toolhost mcp hands them to the SDK as they are.
package rpcfault

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	segjson "github.com/segmentio/encoding/json"
)

// JSON-RPC and LSP error codes.
const (
	CodeParseError           = jsonrpc.CodeParseError
	CodeInvalidRequest       = jsonrpc.CodeInvalidRequest
	CodeMethodNotFound       = jsonrpc.CodeMethodNotFound
	CodeInvalidParams        = jsonrpc.CodeInvalidParams
	CodeInternalError        = jsonrpc.CodeInternalError
	CodeServerNotInitialized = -32002
	CodeRequestCancelled     = -32800
)

// Fault is why a message cannot be served.
type Fault struct {
	Code int64
	// ID is the id the answer repeats, as sent; nil is answered as null.
	ID json.RawMessage
	// Reason says what is wrong; the transport words the answer around it.
	Reason string
	// Response marks a message shaped like a response (a "result" or an
	// "error" and no "method"). One without an id to repeat is not
	// answered, so that two peers cannot bounce errors forever.
	Response bool
}

// Answered reports whether the fault gets an answer.
func (f *Fault) Answered() bool { return !f.Response || f.ID != nil }

// envelope is a message as read in one pass; the values stay as sent.
type envelope struct {
	Version json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// maxExactID is the largest integer id an answer repeats exactly: the
// clients' JavaScript numbers hold integers up to 2^53.
const maxExactID = 1 << 53

// Decode reads one message (a JSON object) or says why it cannot be
// served. It reads the envelope in one pass without copying: the params
// and the result of the message returned are slices of body.
func Decode(body []byte) (jsonrpc.Message, *Fault) {
	if f := CheckDepth(body); f != nil {
		return nil, f
	}
	var env envelope
	if rest, err := segjson.Parse(body, &env, segjson.ZeroCopy|segjson.DontMatchCaseInsensitiveStructFields); err != nil || len(rest) > 0 {
		if !json.Valid(body) {
			return nil, &Fault{Code: CodeParseError, Reason: "not valid JSON: " + syntaxDetail(body)}
		}
		reason := "a JSON-RPC message must be a JSON object"
		if first := firstByte(body); first == '[' {
			reason += " (batches are not supported)"
		}
		return nil, &Fault{Code: CodeInvalidRequest, Reason: reason}
	}
	isNull := func(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }
	hasMethod := !isNull(env.Method)
	response := !hasMethod && (env.Result != nil || env.Error != nil)
	id, idFault := ParseID(env.ID)
	var echo json.RawMessage
	if idFault == nil && id.IsValid() || errors.Is(idFault, errInexactID) {
		echo = env.ID
	}
	invalid := func(reason string) (jsonrpc.Message, *Fault) {
		return nil, &Fault{Code: CodeInvalidRequest, ID: echo, Reason: reason, Response: response}
	}
	if string(env.Version) != `"2.0"` {
		var tag string
		if json.Unmarshal(env.Version, &tag) != nil || tag != "2.0" {
			return invalid(`"jsonrpc" must be "2.0"`)
		}
	}
	if idFault != nil {
		return invalid(idFault.Error())
	}
	if hasMethod {
		var method string
		if json.Unmarshal(env.Method, &method) != nil {
			return invalid(`"method" must be a string`)
		}
		if method == "" {
			return invalid(`"method" must be a non-empty string`)
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: env.Params}, nil
	}
	if !response {
		return invalid(`a JSON-RPC message needs "method" (a request or notification) or "result"/"error" (a response)`)
	}
	if !id.IsValid() {
		return invalid(`a response needs the "id" of the request it answers`)
	}
	resp := &jsonrpc.Response{ID: id, Result: env.Result}
	if !isNull(env.Error) {
		var e jsonrpc.Error
		if json.Unmarshal(env.Error, &e) != nil {
			return invalid(`"error" must be an object with an integer "code" and a string "message"`)
		}
		resp.Error = &e
	}
	return resp, nil
}

// MaxDepth is how deep arrays and objects may nest in a message: as deep
// as the MCP SDK reads. The envelope's parser recurses once per level, and
// a message of megabytes of brackets would overflow the stack.
const MaxDepth = 1000

// CheckDepth refuses a message (or a batch of them) deeper than MaxDepth.
func CheckDepth(body []byte) *Fault {
	if tooDeep(body) {
		return &Fault{Code: CodeInvalidRequest, Reason: fmt.Sprintf("its arrays and objects nest more than %d levels deep; send a flatter message", MaxDepth)}
	}
	return nil
}

// tooDeep reports whether arrays and objects nest in msg more than
// MaxDepth levels, brackets inside strings aside. Strings, where a large
// message keeps its bulk (a file's content), are skipped a quote or
// backslash at a time.
func tooDeep(msg []byte) bool {
	if bytes.Count(msg, []byte("["))+bytes.Count(msg, []byte("{")) <= MaxDepth {
		return false
	}
	depth := 0
	for i := 0; i < len(msg); i++ {
		switch msg[i] {
		case '"':
			for {
				j := bytes.IndexAny(msg[i+1:], `"\`)
				if j < 0 {
					return false
				}
				i += 1 + j
				if msg[i] == '"' {
					break
				}
				i++ // the escaped character
			}
		case '{', '[':
			if depth++; depth > MaxDepth {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

var errInexactID = errors.New(`"id" must be a string or an integer (at most 2^53 in size), so that the answer can repeat it exactly`)

// ParseID reads an id as sent: a string, an integer an answer can repeat
// exactly, or null or nothing (the zero ID, which is not valid).
func ParseID(raw json.RawMessage) (jsonrpc.ID, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return jsonrpc.ID{}, nil
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc.ID{}, errors.New(`"id" must be a string or a number`)
		}
		return jsonrpc.MakeID(s)
	case c == '-' || c >= '0' && c <= '9':
		if _, err := strconv.ParseFloat(string(raw), 64); err != nil {
			return jsonrpc.ID{}, errors.New(`"id" must be a string or a number`)
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > maxExactID || n < -maxExactID || string(raw) == "-0" {
			return jsonrpc.ID{}, errInexactID
		}
		return jsonrpc.MakeID(float64(n))
	}
	return jsonrpc.ID{}, errors.New(`"id" must be a string or a number`)
}

// firstByte is the first byte of body that is not white space, or 0.
func firstByte(body []byte) byte {
	for _, c := range body {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}

// syntaxDetail says where text stops being JSON: the syntax error and its
// byte offset.
func syntaxDetail(text []byte) string {
	var v any
	err := json.Unmarshal(text, &v)
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	if err != nil {
		return err.Error()
	}
	return "unexpected content"
}

// Errorf is an error answer with a code.
func Errorf(code int64, format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WireError is err as an error answer: a *jsonrpc.Error keeps its code
// (one wrapped keeps it under the outer message), and any other error
// gets codeless, so that no answer goes out with code 0.
func WireError(err error, codeless int64) *jsonrpc.Error {
	if e, ok := errors.AsType[*jsonrpc.Error](err); ok && e.Code != 0 {
		if e == err {
			return e
		}
		return &jsonrpc.Error{Code: e.Code, Message: err.Error(), Data: e.Data}
	}
	return &jsonrpc.Error{Code: codeless, Message: err.Error()}
}

// Encode is msg's wire form. A params or result is written as it is, not
// parsed, compacted and escaped again: it was encoded once already (a
// Write's content can be megabytes). A response without result or error
// answers null.
func Encode(msg jsonrpc.Message) ([]byte, error) {
	head, payload, tail, err := encodeParts(msg)
	if err != nil {
		return nil, err
	}
	return concat(head, payload, tail), nil
}

// closing ends an envelope; only read.
var closing = []byte{'}'}

// encodeParts is msg's wire form in three parts: the envelope up to the
// params or result, those as they are (not copied), and the envelope's end.
func encodeParts(msg jsonrpc.Message) (head, payload, tail []byte, err error) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		method, _ := json.Marshal(m.Method) // a string always encodes
		b := make([]byte, 0, len(method)+64)
		b = append(b, `{"jsonrpc":"2.0",`...)
		if m.ID.IsValid() {
			b = appendID(append(b, `"id":`...), m.ID)
			b = append(b, ',')
		}
		b = append(append(b, `"method":`...), method...)
		if len(m.Params) > 0 {
			return append(b, `,"params":`...), m.Params, closing, nil
		}
		return append(b, '}'), nil, nil, nil
	case *jsonrpc.Response:
		b := make([]byte, 0, 64)
		b = appendID(append(b, `{"jsonrpc":"2.0","id":`...), m.ID)
		switch {
		case m.Error != nil:
			e, err := json.Marshal(WireError(m.Error, CodeInternalError))
			if err != nil {
				return nil, nil, nil, fmt.Errorf("encoding an error answer: %w", err)
			}
			return append(b, `,"error":`...), e, closing, nil
		case len(m.Result) > 0:
			return append(b, `,"result":`...), m.Result, closing, nil
		default:
			return append(b, `,"result":null}`...), nil, nil, nil
		}
	}
	return nil, nil, nil, fmt.Errorf("cannot encode a %T", msg)
}

// appendID appends id as JSON; the zero ID is null.
func appendID(b []byte, id jsonrpc.ID) []byte {
	switch v := id.Raw().(type) {
	case int64:
		return strconv.AppendInt(b, v, 10)
	case string:
		s, _ := json.Marshal(v)
		return append(b, s...)
	}
	return append(b, "null"...)
}

// EncodeFault is the answer to a fault in the input: an error response
// with the fault's id (null when it has none) and message.
func EncodeFault(f *Fault, message string) []byte {
	id := f.ID
	if id == nil {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, &jsonrpc.Error{Code: f.Code, Message: message}})
	return data
}

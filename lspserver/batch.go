package lspserver

import (
	"context"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
)

// runBatch runs the calls of toolhost/callTools through the pipeline's batch
// scheduler: independent calls concurrently, conflicting ones in the order
// given, results in the order given. A batch cancelled by the client is
// answered -32800 by the dispatcher.
func runBatch(ctx context.Context, p *engine.Pipeline, host tools.Host, reqs []engine.Request) ([]*engine.Response, error) {
	out := p.CallBatch(ctx, host, reqs)
	return out, ctx.Err()
}

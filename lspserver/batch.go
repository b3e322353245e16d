package lspserver

import (
	"context"

	"github.com/toolhost/toolhost/tools"
)

// runBatch runs the calls of toolhost/callTools through the pipeline's batch
// scheduler: independent calls concurrently, conflicting ones in the order
// given, results in the order given. A batch cancelled by the client is
// answered -32800 by the dispatcher.
func runBatch(ctx context.Context, p *tools.Pipeline, host tools.Host, reqs []tools.Request) ([]*tools.Response, error) {
	out := p.CallBatch(ctx, host, reqs)
	return out, ctx.Err()
}

package fs

import (
	"testing"

	"github.com/toolhost/toolhost/internal/teststate"
)

// TestMain gives the test program a state folder of its own: the change
// journal and the pending-writes list stay out of the user's cache folder.
func TestMain(m *testing.M) { teststate.Main(m, "fs") }

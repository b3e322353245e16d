package workspacetest

import (
	"os"
	"sync"
)

// SwapFolder keeps swapping the folder dir for a symbolic link to target
// and back, as fast as it can, until the returned stop is called (stop
// waits for the swapping to end and leaves dir a folder). It stands for
// another process racing a tool between its permission check and its use
// of a path.
func SwapFolder(dir, target string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		aside, link := dir+".real", dir+".link"
		_ = os.Symlink(target, link)
		for {
			select {
			case <-done:
				return
			default:
			}
			// dir is a folder, then a link to target, then a folder again.
			_ = os.Rename(dir, aside)
			_ = os.Rename(link, dir)
			_ = os.Rename(dir, link)
			_ = os.Rename(aside, dir)
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
		})
	}
}

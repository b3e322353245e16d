package shell

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools/permission/protect"
)

// The sandbox (bash.sandbox) runs a command under bubblewrap: the whole
// file system read-only, the workspace folders writable except for the
// protected files (settings, hooks, git config: protect.SandboxBinds), a private /tmp,
// its own /dev and /proc, its own process namespace (when bubblewrap ends,
// the kernel ends everything inside), and no network unless
// bash.sandboxNetwork. When bubblewrap is missing or cannot set the
// sandbox up, the call fails and says how to fix it: a command the user
// asked to confine never runs unconfined.

// bwrapName is the bubblewrap binary looked up on PATH.
const bwrapName = "bwrap"

// errNoSandbox explains a missing bubblewrap.
var errNoSandbox = errors.New("bash.sandbox is on, but bubblewrap (bwrap) is not installed, so the command did not run. " +
	"Ask the user to install it (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install bubblewrap) " +
	"or to turn bash.sandbox off")

// sandboxArgs returns the command line that runs `bash -c command` in dir:
// under bubblewrap when the settings ask for the sandbox, else bash itself.
// extra are folders of toolhost's own the command's shell writes besides
// the workspace (the folder report of Bash).
func sandboxArgs(s *settings.Settings, folders []string, dir, command string, extra ...string) (name string, args []string, err error) {
	if !s.Bash.Sandbox {
		bash, err := bashProgram()
		if err != nil {
			return "", nil, err
		}
		return bash, []string{"-c", command}, nil
	}
	bwrap, err := exec.LookPath(bwrapName)
	if err != nil {
		return "", nil, errNoSandbox
	}
	args = []string{
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
		"--unshare-pid", "--die-with-parent",
	}
	if !s.Bash.SandboxNetwork {
		args = append(args, "--unshare-net")
	}
	for _, f := range folders {
		if st, err := os.Stat(f); err == nil && st.IsDir() {
			args = append(args, "--bind", f, f)
		}
	}
	// The files that decide what toolhost and git may run stay read-only,
	// so that a confined command cannot widen what the next one may do.
	for _, f := range folders {
		pin, readOnly, writable := protect.SandboxBinds(f)
		for _, p := range pin {
			args = append(args, "--bind", p, p)
		}
		for _, p := range readOnly {
			args = append(args, "--ro-bind", p, p)
		}
		for _, p := range writable {
			args = append(args, "--bind", p, p)
		}
	}
	for _, p := range extra {
		args = append(args, "--bind", p, p)
	}
	args = append(args, "--chdir", dir, "--", "bash", "-c", command)
	return bwrap, args, nil
}

// sandboxFailure recognises bubblewrap's own failure to set the sandbox up
// (it writes "bwrap: ..." and exits 1 before the command runs) and says
// what to do; "" when the output is the command's.
func sandboxFailure(s *settings.Settings, output string, exitCode int) string {
	if !s.Bash.Sandbox || exitCode != 1 || !strings.HasPrefix(output, "bwrap: ") {
		return ""
	}
	line, _, _ := strings.Cut(output, "\n")
	return fmt.Sprintf("bash.sandbox is on, but bubblewrap could not set up the sandbox (%s), so the command did not run. "+
		"Unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1), or the system forbids them; "+
		"ask the user to allow them, or to turn bash.sandbox off", line)
}

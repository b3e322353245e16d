package discovery

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// makePrivate gives path a protected access list that lets only the
// current user in (inherited by what a folder holds): the session files
// hold bearer tokens. The folder is under %LOCALAPPDATA%, already the
// user's; this also shuts out administrators' and SYSTEM's inherited
// entries.
func makePrivate(path string, dir bool) error {
	sid, err := currentUser()
	if err != nil {
		return err
	}
	inherit := ""
	if dir {
		inherit = "OICI"
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;" + inherit + ";FA;;;" + sid.String() + ")")
	if err != nil {
		return err
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return err
	}
	return windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
}

// userOnly refuses a discovery file that another user owns: its URL may
// have been planted.
func userOnly(path string, _ os.FileInfo) error {
	sid, err := currentUser()
	if err != nil {
		return err
	}
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("reading the owner of %s: %w", path, err)
	}
	owner, _, err := sd.Owner()
	if err != nil {
		return fmt.Errorf("reading the owner of %s: %w", path, err)
	}
	if !owner.Equals(sid) {
		return fmt.Errorf("%s belongs to another user (%s); remove it", path, owner)
	}
	return nil
}

// currentUser is the SID of the user this process runs as.
func currentUser() (*windows.SID, error) {
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("reading the current user: %w", err)
	}
	return user.User.Sid, nil
}

package tickframe

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// busyAttr makes a busy process die with the stress command, however that
// ends.
func busyAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// stressUser is the user -as runs the demo and the busy processes as: its
// ids, no supplementary groups, and (a change of user from root drops
// them) no capabilities.
type stressUser struct {
	name string
	cred *syscall.Credential
	env  []string
}

func lookupStressUser(name string) (*stressUser, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("only root can run the demo as another user")
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, err
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("ids %s:%s", u.Uid, u.Gid)
	}
	if uid == 0 {
		return nil, errors.New("is root: name an ordinary user (nobody)")
	}
	return &stressUser{name: name, cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}, nil
}

// prepare makes dir the user's, copies the executable exe into it (the
// user may not be able to reach where it is) and gives the user the
// display's cookie and a home there; it returns the copy's path.
func (u *stressUser) prepare(dir, exe string) (string, error) {
	if err := os.Chown(dir, int(u.cred.Uid), int(u.cred.Gid)); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "tickframe")
	data, err := os.ReadFile(exe)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		return "", err
	}
	u.env = append(os.Environ(), "HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "USER="+u.name, "LOGNAME="+u.name)
	if xa := os.Getenv("XAUTHORITY"); xa != "" {
		cookie, err := os.ReadFile(xa)
		if err != nil {
			return "", fmt.Errorf("XAUTHORITY: %w", err)
		}
		p := filepath.Join(dir, "Xauthority")
		if err := os.WriteFile(p, cookie, 0o600); err != nil {
			return "", err
		}
		if err := os.Chown(p, int(u.cred.Uid), int(u.cred.Gid)); err != nil {
			return "", err
		}
		u.env = append(u.env, "XAUTHORITY="+p)
	}
	return bin, nil
}

// apply makes cmd run as the user (nothing for a nil user).
func (u *stressUser) apply(cmd *exec.Cmd) {
	if u == nil {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = u.cred
	cmd.Env = u.env
}

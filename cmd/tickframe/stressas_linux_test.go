package main

import (
	"strings"
	"testing"
)

// -as takes an ordinary user that exists; anything else is a flag error.
func TestStressAsBadUser(t *testing.T) {
	for _, c := range []struct{ user, want string }{
		{"no-such-user-tickframe", "unknown user"},
		{"root", "is root"},
	} {
		var out, errOut strings.Builder
		if rc := stressMain([]string{"-as", c.user, "-duration", "1s"}, &out, &errOut); rc != 2 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("-as %s: exit %d, %q; want 2 and %q", c.user, rc, errOut.String(), c.want)
		}
	}
}

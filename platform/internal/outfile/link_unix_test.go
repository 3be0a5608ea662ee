//go:build unix

package outfile_test

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/platform/internal/outfile"
)

func write(path, s string) error {
	return outfile.Write(path, func(w io.Writer) error { _, err := io.WriteString(w, s); return err })
}

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range ents {
		n = append(n, e.Name())
	}
	return n
}

// A path that is a link is written where the link leads, and the link
// stays: a regular file at the end of a chain of links, relative ones
// included, is replaced through a temporary file in its own directory
// (nothing is created beside the links); a dangling link gets its file
// made where it points; a link to a device writes into the device. The
// up-front check follows the links the same way.
func TestLinks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		links [][2]string // name in links/ (or "mid/NAME"), and where it points
		old   string      // real/out.json's content before, "" for none
		dev   bool        // the path leads to /dev/null
	}{
		{name: "to a regular file", links: [][2]string{{"out.json", "../real/out.json"}}, old: "old"},
		{name: "to a regular file, absolute", links: [][2]string{{"out.json", "REAL/out.json"}}, old: "old"},
		{name: "through two links", links: [][2]string{{"out.json", "mid/hop"}, {"mid/hop", "../../real/out.json"}}, old: "old"},
		{name: "dangling", links: [][2]string{{"out.json", "../real/out.json"}}},
		{name: "dangling, through two links", links: [][2]string{{"out.json", "mid/hop"}, {"mid/hop", "../../real/out.json"}}},
		{name: "to /dev/null", links: [][2]string{{"out.json", os.DevNull}}, dev: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			links, real := filepath.Join(root, "links"), filepath.Join(root, "real")
			for _, d := range []string{links, filepath.Join(links, "mid"), real} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, l := range tc.links {
				if err := os.Symlink(strings.Replace(l[1], "REAL", real, 1), filepath.Join(links, l[0])); err != nil {
					t.Fatal(err)
				}
			}
			target := filepath.Join(real, "out.json")
			if tc.old != "" {
				if err := os.WriteFile(target, []byte(tc.old), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(links, "out.json")
			if err := outfile.CheckWritable(path); err != nil {
				t.Fatalf("CheckWritable = %v", err)
			}
			wantReal := []string(nil)
			if tc.old != "" {
				wantReal = []string{"out.json"}
			}
			if n := names(t, real); !slices.Equal(n, wantReal) {
				t.Fatalf("after CheckWritable real/ holds %q", n)
			}
			if err := write(path, "new"); err != nil {
				t.Fatalf("Write = %v", err)
			}
			for _, l := range tc.links {
				fi, err := os.Lstat(filepath.Join(links, l[0]))
				if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
					t.Fatalf("the link %s was replaced: %v %v", l[0], fi.Mode(), err)
				}
			}
			if n := names(t, filepath.Join(links, "mid")); len(tc.links) == 1 && len(n) != 0 {
				t.Fatalf("links/mid holds %q", n)
			}
			if n := names(t, links); !slices.Equal(n, []string{"mid", "out.json"}) {
				t.Fatalf("links/ holds %q", n)
			}
			if tc.dev {
				if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
					t.Fatalf("%s is no longer a character device: %v %v", os.DevNull, fi.Mode(), err)
				}
				return
			}
			if n := names(t, real); !slices.Equal(n, []string{"out.json"}) {
				t.Fatalf("real/ holds %q", n)
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != "new" {
				t.Fatalf("through the link: %q %v", b, err)
			}
			if fi, err := os.Lstat(target); err != nil || fi.Mode() != 0o644 {
				t.Fatalf("the target: %v %v, want a regular file, mode 0644", fi.Mode(), err)
			}
		})
	}
}

// A link that leads where nothing can be written fails the check, as it
// fails the write, and neither changes anything: a dangling link into a
// missing directory, a link to a directory, a loop.
func TestLinksRefused(t *testing.T) {
	for _, tc := range []struct {
		name, to, want string
	}{
		{"into a missing directory", "../missing/out.json", "does not exist"},
		{"to a directory", "../real", "is a directory"},
		{"a loop", "out.json", "too many levels of symbolic links"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			links, real := filepath.Join(root, "links"), filepath.Join(root, "real")
			for _, d := range []string{links, real} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(links, "out.json")
			if err := os.Symlink(tc.to, path); err != nil {
				t.Fatal(err)
			}
			if err := outfile.CheckWritable(path); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CheckWritable = %v, want %q", err, tc.want)
			}
			if err := write(path, "new"); err == nil {
				t.Errorf("Write = nil")
			}
			if f, err := outfile.Create(path); err == nil {
				io.WriteString(f, "new")
				t.Errorf("Create = nil, then Commit = %v", f.Commit())
			}
			if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
			}
			if n := names(t, links); !slices.Equal(n, []string{"out.json"}) {
				t.Fatalf("links/ holds %q", n)
			}
			if n := names(t, real); len(n) != 0 {
				t.Fatalf("real/ holds %q", n)
			}
		})
	}
}
